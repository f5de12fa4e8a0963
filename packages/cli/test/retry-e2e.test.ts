import { createServer } from "node:net";
import { error, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";

/** Provider retries are shown as they happen, in words that say what to check. */

const e2e = setupCliE2e("arbor-retry-e2e-");

const runArgs = (baseURL: string, ...rest: string[]) => ["run", ...e2e.modelArgs(baseURL), ...rest];

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("provider retries", () => {
  it("says each retry on stderr as it happens, then the run goes on", async () => {
    const baseURL = await e2e.fake([
      [error(503, { message: "overloaded", headers: { "retry-after-ms": "10" } })],
      [text("Fine now.")],
    ]);
    const r = await e2e.cli(runArgs(baseURL, "--json", "hello"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^retrying 1\/4 in 10 ms: the provider answered 503 at http:\/\/127\.0\.0\.1:\d+\/v1: overloaded$/m);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toContain('"text":"Fine now."');
  });

  it("names a refused connection and what to check, before the first wait is over", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const c = e2e.startArbor(runArgs(url, "hello"));
    await c.waitForStderr(
      // The first wait is jittered around a second, so it may read "864 ms" as well as "1 s".
      /retrying 1\/4 in \d+ m?s: connection refused at http:\/\/127\.0\.0\.1:\d+\/v1; check --base-url or that the server is up/,
    );
    c.child.kill("SIGINT");
    const r = await c.result;
    expect(r.stderr).toContain(`connection refused at ${url};`);
  });
});

describe("settings errors", () => {
  it("name the flag or variable the user set, not the internal key", async () => {
    const flag = await e2e.cli(runArgs("notaurl", "hello"));
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe("error: command-line options: --base-url: Invalid URL\n");
    const env = await e2e.cli(["run", "--model", FAKE_MODEL, "--cwd", e2e.workspace, "hello"], {
      env: { ARBOR_BASE_URL: "nope" },
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toBe("error: environment: ARBOR_BASE_URL: Invalid URL\n");
  });
});
