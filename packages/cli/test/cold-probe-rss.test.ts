import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The cold-start benchmark spawns each process it measures from the bench process, which grows as the
// sections before it run. A child must report its own peak RSS, not the parent's memory that Linux
// carries across fork and exec into getrusage's maxrss (bench/lib/peak-rss.mjs).

const PROBE = fileURLToPath(new URL("../../../bench/cold/probe.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "arbor-cold-probe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform === "linux")("the cold-start probe's peak RSS", () => {
  it("is the measured process's own, not its parent's", () => {
    const out = join(dir, "probe.json");
    // A parent holding 300 MB spawns `node -e 0` under the probe, as the bench does when it has grown.
    const parent = `
      const held = Buffer.alloc(300e6, 1);
      require("node:child_process").execFileSync(process.execPath, ["--import", ${JSON.stringify(PROBE)}, "-e", "0"], {
        env: { ...process.env, ARBOR_BENCH_PROBE: ${JSON.stringify(out)} },
      });
      console.log(held.length);
    `;
    execFileSync(process.execPath, ["-e", parent]);
    const { maxRssKb } = JSON.parse(readFileSync(out, "utf8")) as { maxRssKb: number };
    // `node -e 0` peaks at ~45 MB; the parent was over 300 MB when it forked.
    expect(maxRssKb / 1024).toBeGreaterThan(10);
    expect(maxRssKb / 1024).toBeLessThan(150);
  });
});
