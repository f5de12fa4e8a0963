import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open.js";

/** Several real processes on one store, over the built library. */

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "arbor-processes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function node(script: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture(script), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b));
    child.stderr.on("data", (b: Buffer) => (out += b));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("several processes on one store", () => {
  it("file store: concurrent appends from three processes are all kept, in one valid chain", async () => {
    const spec = join(dir, "file-store");
    const store = await openStore(spec);
    const { id } = await store.createSession();
    await store.close();
    const perProcess = 100;
    const barrier = join(dir, "barrier");
    mkdirSync(barrier);
    const runs = await Promise.all(
      ["a", "b", "c"].map((tag) => node("append-n.mjs", [spec, id, String(perProcess), tag, barrier, "3"])),
    );
    for (const r of runs) expect(r.code, r.out).toBe(0);
    const reopened = await openStore(spec);
    const path = await reopened.getActivePath(id);
    const texts = path.map((e) => (e.type === "message" ? (e.message.content[0] as { text: string }).text : ""));
    const expected = ["a", "b", "c"].flatMap((tag) => Array.from({ length: perProcess }, (_, i) => `${tag} ${i}`));
    const lost = expected.filter((t) => !texts.includes(t));
    console.log(`file store, 3 processes appending at once: ${expected.length} appends, ${lost.length} lost`);
    expect(lost).toEqual([]);
    expect(path).toHaveLength(expected.length);
    expect((await reopened.listEntries(id)).length).toBe(expected.length);
    await reopened.close();
  });

  it("two processes creating one new SQLite store at the same moment both start", async () => {
    const trials = 20;
    const failures: string[] = [];
    for (let t = 0; t < trials; t++) {
      const file = join(dir, `race-${t}`, "store.db");
      const runs = await Promise.all([node("open-sqlite.mjs", [file]), node("open-sqlite.mjs", [file])]);
      for (const r of runs) if (r.code !== 0) failures.push(r.out.trim());
    }
    console.log(`new SQLite store opened by 2 processes at once: ${trials} trials, ${failures.length} failed start-ups`);
    expect(failures).toEqual([]);
  }, 180_000);
});
