import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/model/run-events.js";
import { harness } from "./harness.js";

function models(main: LanguageModelV4, worker: LanguageModelV4): LanguageModelV4 {
  return routedModel({ route: (prompt) => (taskOf(prompt).startsWith("main:") ? "main" : "worker"), models: { main, worker } });
}

describe("a sub-agent's rights are capped by its caller's", () => {
  it("plan (editing denied, commands ask) cannot write or run bash unasked through delegate", async () => {
    const main = scriptedModel([[toolCall("delegate", { task: "write the file" })], [text("delegated")]]);
    const worker = scriptedModel([
      [toolCall("write", { path: "pwned.txt", content: "PWNED" }, { id: "w1" })],
      [toolCall("bash", { command: "echo PWNED > bash.txt" }, { id: "b1" })],
      [text("done")],
    ]);
    const { runtime, cwd } = await harness({ model: models(main, worker) });
    const handle = runtime.runs.run({ prompt: "main: delegate it", agent: "plan" });
    const asked: RunEvent[] = [];
    for await (const event of handle) {
      if (event.type !== "permission_request") continue;
      asked.push(event);
      runtime.asks.replyPermission(event.id, "reject");
    }
    expect((await handle.result).status).toBe("done");
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
    expect(existsSync(join(cwd, "bash.txt"))).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ permission: "bash", metadata: { sub_trace_id: expect.stringContaining("@delegate-") } });
    const tools = (worker.calls[0]!.options.tools ?? []).map((t) => t.name);
    expect(tools).not.toContain("write");
    expect(tools).not.toContain("edit");
  });
});
