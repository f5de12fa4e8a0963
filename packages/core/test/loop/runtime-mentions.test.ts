import { routedModel, scriptedModel, taskOf, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { mentionCall } from "../../src/subagents/mentions.js";
import { collect, harness } from "./harness.js";

describe("a prompt that mentions a sub-agent", () => {
  it("@general starts a delegate sub-agent as the first step; the main agent carries on from its report", async () => {
    const main = scriptedModel([[text("The config lives in arbor.json.")]]);
    const sub = scriptedModel([[text("Found it: arbor.json at the root.")]]);
    const model = routedModel({
      route: (prompt) => (taskOf(prompt).startsWith("@general") ? "main" : "sub"),
      models: { main, sub },
    });
    const { runtime, store } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "@general find where the config lives" }));
    expect(result.status).toBe("done");
    // The sub-agent got the task; the main agent's only model call came after its report.
    expect(JSON.stringify(sub.calls[0]!.prompt)).toContain("find where the config lives");
    expect(main.calls).toHaveLength(1);
    const roles = main.calls[0]!.prompt.map((m) => m.role);
    expect(roles.slice(-3)).toEqual(["user", "assistant", "tool"]);
    expect(JSON.stringify(main.calls[0]!.prompt.at(-1))).toContain("Found it: arbor.json at the root.");
    const path = await store.getActivePath(result.sessionId);
    const call = path.find((e) => e.type === "message" && e.message.role === "assistant");
    expect(call?.type === "message" && call.message.content[0]).toMatchObject({
      type: "tool-call",
      toolName: "delegate",
      input: { task: "find where the config lives" },
    });
    const subs = (await store.listSessions({ parentSessionId: result.sessionId })).sessions;
    expect(subs.map((s) => [s.agentType, s.task])).toEqual([["delegate", "find where the config lives"]]);
  });

  it("@explore runs one explore branch; a mention anywhere but the start, or without a task, is plain text", async () => {
    const main = scriptedModel([[text("done exploring")]]);
    const sub = scriptedModel([[text("branch report")]]);
    const model = routedModel({
      route: (prompt) => (taskOf(prompt).includes("look at the tests") && taskOf(prompt).startsWith("@") ? "main" : "sub"),
      models: { main, sub },
    });
    const { runtime, store } = await harness({ model });
    const first = await collect(runtime.runs.run({ prompt: "@explore look at the tests" }));
    expect(first.result.status).toBe("done");
    expect(sub.calls).toHaveLength(1);
    const subs = (await store.listSessions({ parentSessionId: first.result.sessionId })).sessions;
    expect(subs.map((s) => s.agentType)).toEqual(["explore"]);
    expect(mentionCall("please @explore x")).toBeUndefined();
    expect(mentionCall("@explore")).toBeUndefined();
    expect(mentionCall("@general  do it ")).toEqual({ toolName: "delegate", input: { task: "do it" } });
  });
});
