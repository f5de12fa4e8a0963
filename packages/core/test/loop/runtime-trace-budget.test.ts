import { routedModel, scriptedModel, taskOf, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { envLayer, resolveConfig } from "../../src/config/resolve.js";
import { TraceSpend } from "../../src/loop/trace-spend.js";
import { collect, harness } from "./harness.js";

/** The main agent delegates two tasks in one step (run one after the other); each sub-agent answers at once. */
function twoDelegates(subTokens: number) {
  const models = {
    main: scriptedModel([
      [
        toolCall("delegate", { task: "first" }, { id: "d1" }),
        toolCall("delegate", { task: "second" }, { id: "d2" }),
        usage({ inputTokens: 10, outputTokens: 10 }),
      ],
      [text("main done")],
    ]),
    first: scriptedModel([[text("first done"), usage({ inputTokens: subTokens, outputTokens: 0 })]]),
    second: scriptedModel([[text("second done")]]),
  };
  const model = routedModel({
    route: (prompt) => {
      const task = taskOf(prompt);
      return task.startsWith("main:") ? "main" : task;
    },
    models,
  });
  return { model, models };
}

describe("a trace's spending cap", () => {
  it("counts sub-agents' tokens as they spend them: at the cap the next sub-agent is refused and the run stops, saying why", async () => {
    const { model, models } = twoDelegates(500);
    const config = resolveConfig([{ source: "test", value: { agent: { maxTraceTokens: 300, toolConcurrency: 1 } } }]);
    const { runtime, store } = await harness({ model, config });
    const { events, result } = await collect(runtime.runs.run({ prompt: "main: go" }));

    expect(result).toMatchObject({ status: "done", stopReason: "budget" });
    expect(result.stopMessage).toContain("token budget of 300 (agent.maxTraceTokens) is spent: 520 tokens");
    expect(events.at(-1)).toMatchObject({ type: "done", stop_reason: "budget", message: result.stopMessage });
    // The main agent was not called again, and the second sub-agent never ran.
    expect(models.main.calls).toHaveLength(1);
    expect(models.second.calls).toHaveLength(0);
    const second = events.find((e) => e.type === "tool_end" && e.call_id === "d2");
    expect(second?.type === "tool_end" && second.output).toContain("No sub-agent was started: the trace's token budget of 300");
    // The first sub-agent stopped on the same cap, and its status says so.
    const subs = (await store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions;
    expect(subs).toHaveLength(1);
    const first = events.find((e) => e.type === "tool_end" && e.call_id === "d1");
    expect(first?.type === "tool_end" && first.output).toContain("budget");
  });

  it("under the cap nothing changes; the run's own option overrides the config", async () => {
    const { model, models } = twoDelegates(100);
    const config = resolveConfig([{ source: "test", value: { agent: { maxTraceTokens: 50, toolConcurrency: 1 } } }]);
    const { runtime } = await harness({ model, config });
    const { result } = await collect(runtime.runs.run({ prompt: "main: go", traceBudget: { maxTokens: 10_000 } }));
    expect(result).toMatchObject({ status: "done", stopReason: "finished", text: "main done" });
    expect(result.stopMessage).toBeUndefined();
    expect(models.second.calls).toHaveLength(1);
  });

  it("caps cost too, and reads both caps from the environment and the config", () => {
    const spend = new TraceSpend({ maxCost: 0.5 });
    spend.add({ input: 1000, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.49);
    expect(spend.spent()).toBeUndefined();
    spend.add(undefined, 0.02);
    expect(spend.spent()).toBe(
      "the trace's cost budget of $0.5 (agent.maxTraceCost) is spent: $0.5100 across this agent and its sub-agents",
    );
    const fromEnv = resolveConfig([envLayer({ ARBOR_MAX_TRACE_TOKENS: "2000", ARBOR_MAX_TRACE_COST: "1.25" })]).agent;
    expect(fromEnv).toMatchObject({ maxTraceTokens: 2000, maxTraceCost: 1.25 });
    expect(resolveConfig([]).agent.maxTraceTokens).toBeUndefined();
    expect(() => resolveConfig([{ source: "arbor.json", value: { agent: { maxTraceTokens: -5 } } }])).toThrow(
      /arbor\.json: .*agent\.maxTraceTokens/,
    );
  });
});
