import type { LanguageModelV4 } from "@ai-sdk/provider";
import { routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { envLayer, resolveConfig } from "../../src/config/resolve.js";
import type { Store } from "../../src/store/store.js";
import { collect, harness } from "./harness.js";

/** Each level delegates the next level's task, then answers; routed by the task each run was given. */
function chain(levels: number) {
  const models: Record<string, ReturnType<typeof scriptedModel>> = {
    main: scriptedModel([[toolCall("delegate", { task: "level 1" })], [text("main done")]]),
  };
  for (let i = 1; i <= levels; i++) {
    models[`level ${i}`] = scriptedModel([[toolCall("delegate", { task: `level ${i + 1}` })], [text(`level ${i} done`)]]);
  }
  const model: LanguageModelV4 = routedModel({
    route: (prompt) => {
      const task = taskOf(prompt);
      return task.startsWith("main:") ? "main" : (Object.keys(models).find((name) => task === name) ?? "unknown");
    },
    models,
  });
  return { model, models };
}

/** The ids of the sub-trace chain under `root`, parent to child. */
async function chainIds(store: Store, root: string): Promise<string[]> {
  const ids: string[] = [];
  let parent = root;
  for (;;) {
    const subs = (await store.listSessions({ parentSessionId: parent, limit: 10 })).sessions;
    if (subs.length === 0) return ids;
    expect(subs).toHaveLength(1);
    parent = subs[0]!.id;
    ids.push(parent);
  }
}

/** What the tool answered to a level's delegate call, as the model read it at its next step. */
function toolResultSeen(model: ReturnType<typeof scriptedModel>): string {
  const prompt = model.calls[1]?.prompt ?? [];
  const tool = prompt.filter((m) => m.role === "tool").at(-1);
  return JSON.stringify(tool?.content ?? null);
}

/** A chain of `levels` sub-agents run under `agent.maxSubAgentDepth: depth`; the run must end done. */
async function runWithDepth(levels: number, depth: number) {
  const { model, models } = chain(levels);
  const config = resolveConfig([{ source: "test", value: { agent: { maxSubAgentDepth: depth } } }]);
  const { runtime, store } = await harness({ model, config });
  const { result } = await collect(runtime.runs.run({ prompt: "main: go" }));
  expect(result.status).toBe("done");
  return { models, store, result };
}

describe("sub-agent nesting depth", () => {
  it("stops a delegate chain at depth 2 by default, telling the model why, with no internal error", async () => {
    const { model, models } = chain(3);
    const { runtime, store } = await harness({ model });
    const { result } = await collect(runtime.runs.run({ prompt: "main: go" }));
    expect(result.status).toBe("done");
    expect(result.text).toBe("main done");

    const ids = await chainIds(store, result.sessionId);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect((await store.getSession(id))?.status).toBe("completed");

    // Level 2 asked for a third level and was answered in words, not with a validation failure.
    const seen = toolResultSeen(models["level 2"]!);
    expect(seen).toContain("No sub-agent was started");
    expect(seen).toContain("at most 2 deep (agent.maxSubAgentDepth)");
    expect(seen).not.toMatch(/invalid|validation|240/i);
    expect(models["level 3"]!.calls).toHaveLength(0);
    // Level 1 still got level 2's report.
    expect(toolResultSeen(models["level 1"]!)).toContain("level 2 done");
  });

  it("follows agent.maxSubAgentDepth from the config", async () => {
    const { models, store, result } = await runWithDepth(2, 1);
    expect(await chainIds(store, result.sessionId)).toHaveLength(1);
    expect(toolResultSeen(models["level 1"]!)).toContain("at most 1 deep");
    expect(models["level 2"]!.calls).toHaveLength(0);
  });

  it("with a depth of 0 the main agent starts no sub-agent at all", async () => {
    const { models, store, result } = await runWithDepth(1, 0);
    expect(await chainIds(store, result.sessionId)).toEqual([]);
    expect(toolResultSeen(models.main!)).toContain("not allowed to start sub-agents");
  });

  it("reads the depth from ARBOR_MAX_SUBAGENT_DEPTH, rejecting a value that is not a whole number", () => {
    expect(resolveConfig([envLayer({ ARBOR_MAX_SUBAGENT_DEPTH: "3" })]).agent.maxSubAgentDepth).toBe(3);
    expect(resolveConfig([]).agent.maxSubAgentDepth).toBe(2);
    expect(() => envLayer({ ARBOR_MAX_SUBAGENT_DEPTH: "deep" })).toThrow(/ARBOR_MAX_SUBAGENT_DEPTH: expected a whole number/);
  });

  it("rejects a negative or fractional depth in the config, naming the key", () => {
    for (const bad of [-1, 1.5]) {
      expect(() => resolveConfig([{ source: "arbor.json", value: { agent: { maxSubAgentDepth: bad } } }])).toThrow(
        /arbor\.json: .*agent\.maxSubAgentDepth/,
      );
    }
  });
});
