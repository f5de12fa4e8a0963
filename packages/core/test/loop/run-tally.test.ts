import { type ScriptAction, type StepContext, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { Config } from "../../src/config/schema.js";
import { TokenCounter } from "../../src/context/token-counter.js";
import { EMPTY_TALLY, tallyEntry } from "../../src/loop/tally.js";
import type { Entry } from "../../src/model/entry.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { collect, harness, printTool } from "./harness.js";

const base = { parentId: null, timestamp: new Date(0).toISOString() };
const tokens = (input: number, output: number) => ({ input, output, reasoning: 0, cacheRead: 0, cacheWrite: 0 });

function assistant(id: string, fields: Record<string, unknown>): Entry {
  return { ...base, id, type: "message", message: { role: "assistant", content: [], ...fields } } as Entry;
}

describe("a run's tally, folded from the entries it writes", () => {
  it("counts steps and adds each assistant message's tokens and cost and each compaction's summary spending", () => {
    const entries: Entry[] = [
      assistant("a1", { content: [{ type: "text", text: "first" }], tokens: tokens(10, 2), cost: 0.5, durationMs: 5 }),
      {
        ...base,
        id: "c1",
        type: "compaction",
        summary: "s",
        firstKeptEntryId: "a1",
        tokensBefore: 100,
        details: { usage: tokens(50, 5), cost: 0.25 },
      },
      // A model without a price: its tokens count, its cost is unknown.
      assistant("a2", {
        content: [
          { type: "text", text: "answer" },
          { type: "text", text: "!" },
        ],
        tokens: tokens(1, 1),
        durationMs: 1,
      }),
      // A plan's closing report made no model call, but it is the answer.
      assistant("a3", { content: [{ type: "text", text: "report" }] }),
      // A failed step and a replayed call are not the run's answer; the failed one was a step.
      assistant("a4", {
        content: [{ type: "text", text: "half" }],
        error: { code: "provider_error", message: "x" },
        durationMs: 2,
      }),
      assistant("a5", { replayOf: { messageId: "a1", toolCallId: "t1" }, durationMs: 3 }),
      // A call that failed before it streamed leaves only its error.
      { ...base, id: "e1", type: "custom", customType: "arbor.run_error", data: { code: "provider_error", message: "y" } },
      { ...base, id: "e2", type: "custom", customType: "plugin.note", data: {} },
    ];
    const tally = entries.reduce(tallyEntry, EMPTY_TALLY);
    expect(tally).toEqual({
      steps: 4,
      usage: tokens(61, 8),
      cost: 0.75,
      costKnown: false,
      compactions: 1,
      lastText: "report",
    });
  });

  it("a compaction whose summary went to an unpriced model makes the cost unknown", () => {
    const entry = { ...base, id: "c", type: "compaction", summary: "s", firstKeptEntryId: null, tokensBefore: 1 } as const;
    expect(tallyEntry(EMPTY_TALLY, { ...entry, details: { usage: tokens(1, 1), cost: 0, costKnown: false } }).costKnown).toBe(
      false,
    );
    expect(tallyEntry(EMPTY_TALLY, entry)).toEqual({ ...EMPTY_TALLY, compactions: 1 });
  });

  it("a run that compacts reports exactly what its entries record, the summary's cost included", async () => {
    const counter = new TokenCounter();
    await counter.load();
    type Prompt = Array<{ content: unknown }>;
    const counted = (actions: ScriptAction[]) => (call: StepContext) => {
      const prompt = (call as { options: { prompt: Prompt } }).options.prompt;
      const size = prompt.reduce((n, m) => n + 4 + counter.text(JSON.stringify(m.content)), 0);
      return [...actions, usage({ inputTokens: size + 300, outputTokens: 20 })];
    };
    const blobs = new MemoryBlobStore();
    const config: Config = {
      ...resolveConfig([]),
      models: { "testkit/scripted": { limit: { context: 10_000, output: 1_000 }, cost: { input: 1, output: 2 } } },
    };
    const { runtime, store } = await harness({
      model: scriptedModel([
        counted([toolCall("print", { size: 24_000 }, { id: "c1" })]),
        counted([toolCall("print", { size: 3_000 }, { id: "c2" })]),
        [text("## Goal\nPrint things."), usage({ inputTokens: 900, outputTokens: 40 })],
        counted([text("All printed.")]),
      ]),
      blobs,
      config,
      tools: new ToolRegistry({ blobs }).register(printTool),
    });
    const { result } = await collect(runtime.runs.run({ prompt: "print twice" }));
    expect(result).toMatchObject({ status: "done", text: "All printed.", compactions: 1 });

    const path = await store.getActivePath(result.sessionId);
    const compaction = path.find((e) => e.type === "compaction");
    const details = compaction?.type === "compaction" ? (compaction.details as { cost?: number }) : undefined;
    // The summary's cost is on its entry: a run's spending can be read back from its journal alone.
    expect(details?.cost).toBeGreaterThan(0);
    const fromEntries = path.reduce(tallyEntry, EMPTY_TALLY);
    expect(result.steps).toBe(3);
    expect(fromEntries.steps).toBe(3);
    expect(result.usage).toEqual(fromEntries.usage);
    expect(result.cost).toBeCloseTo(fromEntries.cost, 12);
    expect(result.costKnown).toBeUndefined();
  });
});
