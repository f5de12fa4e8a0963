import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { expect, it } from "vitest";
import { hasGit } from "../../../../test-setup/git.js";
import { collect, harness } from "../loop/harness.js";
import { describeSandbox } from "./harness.js";

/** Every file of a folder (but .git) with its bytes. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (name.startsWith(".git")) continue;
    try {
      out[name] = readFileSync(join(dir, name)).toString("base64");
    } catch {
      // a folder
    }
  }
  return out;
}

describeSandbox("a sandboxed bash run and the snapshots", () => {
  it.runIf(hasGit)("revert undoes a sandboxed bash run's changes byte for byte", async () => {
    const command =
      "printf '\\x00\\x01\\xff binary' > new.bin && echo changed >> kept.txt && rm gone.txt && mkdir -p sub && echo deep > sub/d.txt && echo HOME=$HOME";
    const { runtime, cwd } = await harness({
      model: scriptedModel([[toolCall("bash", { command }, { id: "b" })], [text("done")]]),
      snapshots: true,
    });
    writeFileSync(join(cwd, "kept.txt"), "original\n");
    writeFileSync(join(cwd, "gone.txt"), Buffer.from([0, 1, 2, 255]));
    const before = contents(cwd);
    const { events, result } = await collect(runtime.runs.run({ prompt: "change things" }));
    expect(result.status).toBe("done");
    const end = events.find((e) => e.type === "tool_end");
    // HOME is the call's private temp folder only inside the sandbox.
    expect(end).toMatchObject({ is_error: false, output: expect.stringContaining("HOME=/tmp\n\n[exit code: 0]") });
    expect(contents(cwd)).not.toEqual(before);
    await runtime.sessions.revert(result.sessionId);
    expect(contents(cwd)).toEqual(before);
  });
});
