import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arbor, startArbor } from "./helpers/cli.js";

/** What `arbor serve` says at start-up: a missing model, and a port it cannot have, in words. */

let dir: string;
let home: string;
let workspace: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-serve-start-"));
  home = join(dir, "home");
  workspace = join(dir, "ws");
  await mkdir(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("arbor serve at start-up", () => {
  it("warns when no model is configured, and not when one is; a port in use is an error saying what to do", async () => {
    const bare = startArbor(["serve", "--port", "0", "--json", "--cwd", workspace], { home });
    await bare.waitForStdout(/\n$/);
    const { url } = JSON.parse(bare.stdout()) as { url: string };
    const port = new URL(url).port;

    const taken = await arbor(["serve", "--port", port, "--cwd", workspace, "--model", "openai/gpt-4o"], { home });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(
      new RegExp(
        `^error: port ${port} on 127\\.0\\.0\\.1 is already in use \\(another arbor serve\\?\\): stop that process or pick another port with --port <n>`,
      ),
    );
    expect(taken.stderr).not.toContain("EADDRINUSE");

    bare.child.kill("SIGINT");
    const r = await bare.result;
    expect(r.stderr).toContain("warning: no model is configured, so a chat that names none");
    expect(r.stderr).toContain("Start with --model <provider>/<model>, or set ARBOR_MODEL");

    const configured = startArbor(["serve", "--port", "0", "--json", "--cwd", workspace], {
      home,
      env: { ARBOR_MODEL: "openai/gpt-4o" },
    });
    await configured.waitForStdout(/\n$/);
    configured.child.kill("SIGINT");
    expect((await configured.result).stderr).not.toContain("no model is configured");
  });
});
