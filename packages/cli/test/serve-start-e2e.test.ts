import { describe, expect, it } from "vitest";
import { servedUrl } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";

/** What `arbor serve` says at start-up: a missing model, and a port it cannot have, in words. */

const e2e = setupCliE2e("arbor-serve-start-");

describe("arbor serve at start-up", () => {
  it("warns when no model is configured, and not when one is; a port in use is an error saying what to do", async () => {
    const bare = e2e.startArbor(["serve", "--port", "0", "--json", "--cwd", e2e.workspace]);
    const url = await servedUrl(bare);
    const port = new URL(url).port;

    const taken = await e2e.arbor(["serve", "--port", port, "--cwd", e2e.workspace, "--model", "openai/gpt-4o"]);
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

    const configured = e2e.startArbor(["serve", "--port", "0", "--json", "--cwd", e2e.workspace], {
      env: { ARBOR_MODEL: "openai/gpt-4o" },
    });
    await configured.waitForStdout(/\n$/);
    configured.child.kill("SIGINT");
    expect((await configured.result).stderr).not.toContain("no model is configured");
  });
});
