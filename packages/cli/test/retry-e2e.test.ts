import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { error, type FakeOpenAIServer, startFakeOpenAI, text } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arbor, startArbor } from "./helpers/cli.js";

/** Provider retries are shown as they happen, in words that say what to check. */

let dir: string;
let home: string;
let workspace: string;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-retry-e2e-"));
  home = join(dir, "home");
  workspace = join(dir, "ws");
  await mkdir(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const runArgs = (baseURL: string, ...rest: string[]) => [
  "run",
  "--model",
  "openai-compatible/fake",
  "--base-url",
  baseURL,
  "--cwd",
  workspace,
  ...rest,
];

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
    server = await startFakeOpenAI({
      script: [[error(503, { message: "overloaded", headers: { "retry-after-ms": "10" } })], [text("Fine now.")]],
    });
    const r = await arbor(runArgs(server.baseURL, "--json", "hello"), { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^retrying 1\/4 in 10 ms: the provider answered 503 at http:\/\/127\.0\.0\.1:\d+\/v1: overloaded$/m);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toContain('"text":"Fine now."');
  });

  it("names a refused connection and what to check, before the first wait is over", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const c = startArbor(runArgs(url, "hello"), { home });
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
    const flag = await arbor(runArgs("notaurl", "hello"), { home });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe("error: command-line options: --base-url: Invalid URL\n");
    const env = await arbor(["run", "--model", "openai-compatible/fake", "--cwd", workspace, "hello"], {
      home,
      env: { ARBOR_BASE_URL: "nope" },
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toBe("error: environment: ARBOR_BASE_URL: Invalid URL\n");
  });
});
