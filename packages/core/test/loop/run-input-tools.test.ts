import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "../../src/runtime/builtin-tools.js";
import type { AnyToolDefinition } from "../../src/tools/tool.js";
import { collect, harness, types } from "./harness.js";

const echo = (calls: unknown[]): AnyToolDefinition => ({
  name: "echo_back",
  description: "Echoes its input.",
  input: z.object({ say: z.string() }),
  effects: "none",
  async execute(input) {
    calls.push(input);
    return { output: `echo: ${(input as { say: string }).say}` };
  },
});

describe("tools a run brings (RunInput.tools)", () => {
  it("offers them in that run only, beside the runtime's tools", async () => {
    const calls: unknown[] = [];
    const model = scriptedModel([[toolCall("echo_back", { say: "hi" }, { id: "e1" })], [text("Echoed.")], [text("No tool.")]]);
    const { runtime } = await harness({ model });
    const first = await collect(runtime.runs.run({ prompt: "Echo hi.", tools: [echo(calls)] }));
    expect(first.result.status).toBe("done");
    expect(calls).toEqual([{ say: "hi" }]);
    expect(first.events.find((e) => e.type === "tool_end")).toMatchObject({ output: "echo: hi", is_error: false });
    const offered = model.calls.map((c) => (c.options as { tools?: Array<{ name: string }> }).tools?.map((t) => t.name) ?? []);
    expect(offered[0]).toContain("echo_back");
    // A later run of the session without them is not offered them.
    await collect(runtime.runs.run({ prompt: "Again.", sessionId: first.result.sessionId }));
    const third = model.calls.at(-1)?.options as { tools?: Array<{ name: string }> };
    expect(third.tools?.map((t) => t.name) ?? []).not.toContain("echo_back");
  });

  it("refuses one named like a runtime tool before anything is written", async () => {
    const model = scriptedModel([[text("never")]]);
    const { runtime, store } = await harness({ model, tools: builtinTools({}) });
    const taken = { ...echo([]), name: "read" };
    const { events, result } = await collect(runtime.runs.run({ prompt: "hi", tools: [taken] }));
    expect(types(events)).toEqual(["error"]);
    expect(result.error?.code).toBe("invalid_input");
    expect(result.error?.message).toMatch(/read is one of the runtime's own/);
    expect((await store.listSessions({})).sessions).toHaveLength(0);
  });
});
