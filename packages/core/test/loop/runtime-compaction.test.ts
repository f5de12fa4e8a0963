import {
  error,
  type ScriptAction,
  type ScriptStep,
  type StepContext,
  scriptedModel,
  startFakeOpenAI,
  text,
  toolCall,
  usage,
} from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../src/config/resolve.js";
import type { Config } from "../../src/config/schema.js";
import { CONTINUE_ENTRY_TYPE } from "../../src/context/compactor.js";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/context/summary-prompt.js";
import { TokenCounter } from "../../src/context/token-counter.js";
import type { Entry } from "../../src/model/entry.js";
import { PRUNE_ENTRY_TYPE, PRUNED_OUTPUT } from "../../src/session/prune-entry.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness } from "./harness.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

type Prompt = Array<{ role: string; content: unknown }>;
const promptOf = (call: StepContext): Prompt => (call as { options: { prompt: Prompt } }).options.prompt;
const toolsOf = (call: StepContext): unknown => (call as { options: { tools?: unknown } }).options.tools;
const userText = (prompt: Prompt): string => JSON.stringify(prompt.filter((m) => m.role === "user").map((m) => m.content));

/** A tool printing `size` characters of varied text (so tokens are not compressed away). */
function printTool() {
  return defineTool({
    name: "print",
    description: "Prints text.",
    input: z.object({ size: z.number(), tag: z.string() }),
    execute: async ({ size, tag }) => ({
      output: `${tag} ${Array.from({ length: Math.ceil(size / 6) }, (_, i) => `w${(i * 7919) % 1000}`).join(" ")}`.slice(0, size),
    }),
  });
}

function config(limit: { context: number; output: number }, extra: Partial<Config> = {}): Config {
  return { ...resolveConfig([]), models: { "testkit/scripted": { limit } }, ...extra };
}

async function setup(script: ScriptStep[], limit = { context: 20_000, output: 2_000 }, extra: Partial<Config> = {}) {
  const model = scriptedModel(script);
  const blobs = new MemoryBlobStore();
  const h = await harness({
    model,
    blobs,
    config: config(limit, extra),
    tools: new ToolRegistry({ blobs }).register(printTool()),
  });
  return { ...h, model };
}

const byType = (path: Entry[], type: Entry["type"]) => path.filter((e) => e.type === type);

describe("automatic compaction in the loop", () => {
  it("compacts before the next step when a step's usage overflows, then continues with a synthetic reminder", async () => {
    const counter = new TokenCounter();
    await counter.load();
    /** Reports the prompt's size as a provider would, counted with the tokenizer. */
    const counted = (actions: ScriptAction[]) => (call: StepContext) => {
      const tokens = promptOf(call).reduce((n, m) => n + 4 + counter.text(JSON.stringify(m.content)), 0);
      return [...actions, usage({ inputTokens: tokens + counter.text(JSON.stringify(toolsOf(call) ?? "")), outputTokens: 20 })];
    };
    let summaryCall: StepContext | undefined;
    let afterCall: StepContext | undefined;
    const { runtime, store } = await setup(
      [
        counted([toolCall("print", { size: 24_000, tag: "first" }, { id: "c1" })]),
        counted([toolCall("print", { size: 3_000, tag: "second" }, { id: "c2" })]),
        (call) => {
          summaryCall = call;
          return [text("## Goal\nPrint things.\n## Next steps\nSay done."), usage({ inputTokens: 900, outputTokens: 40 })];
        },
        (call) => {
          afterCall = call;
          return counted([text("All printed.")])(call);
        },
      ],
      { context: 10_000, output: 1_000 },
    );
    const handle = runtime.runs.run({ prompt: "print twice" });
    const { events, result } = await collect(handle);

    expect(result).toMatchObject({ status: "done", text: "All printed.", compactions: 1, steps: 3 });
    // The summary call is in the run's usage, and shown as an llm call of the compaction node.
    const llmEnds = events.filter((e) => e.type === "llm_end");
    expect(result.usage.input).toBe(llmEnds.reduce((n, e) => n + (e.input_tokens ?? 0), 0));
    expect(events.filter((e) => e.type === "llm_start").map((e) => e.node)).toEqual(["build", "build", "compaction", "build"]);

    // The compaction agent: its own system prompt, no tools, the conversation as text.
    const summaryPrompt = promptOf(summaryCall!);
    expect(summaryPrompt[0]).toEqual({ role: "system", content: SUMMARY_SYSTEM_PROMPT });
    expect(toolsOf(summaryCall!)).toBeUndefined();
    expect(userText(summaryPrompt)).toContain("Provide a detailed prompt for continuing our conversation above");
    expect(userText(summaryPrompt)).toContain("print twice");
    expect(userText(summaryPrompt)).toContain("first w0");

    const path = await store.getActivePath(handle.sessionId);
    const [compaction] = byType(path, "compaction");
    expect(compaction).toMatchObject({ type: "compaction", tokensBefore: expect.any(Number), details: { mode: "auto" } });
    expect(compaction?.type === "compaction" && compaction.summary).toContain("## Goal");
    expect(compaction?.type === "compaction" && compaction.tokensBefore).toBeGreaterThan(9_000);
    const continuation = path[path.indexOf(compaction!) + 1];
    expect(continuation).toMatchObject({ type: "custom_message", customType: CONTINUE_ENTRY_TYPE, details: { synthetic: true } });

    // The next step saw the summary and the continuation as synthetic system reminders, not as user text,
    // and the latest step verbatim, its call with its result.
    const next = promptOf(afterCall!);
    expect(next.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    const texts = next.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    expect(texts[0]).toContain("<system-reminder>");
    expect(texts[0]).toContain("## Goal");
    expect(texts.at(-1)).toContain("<system-reminder>");
    expect(texts.at(-1)).toContain("Continue if you have next steps");
    expect(JSON.stringify(next[3])).toContain("second w0");
    expect(JSON.stringify(next)).not.toContain("first w0");
  });

  it("compacts and retries the step once when the provider says the prompt is too long", async () => {
    const overflow = () =>
      error(400, {
        message: "This model's maximum context length is 20000 tokens. However, your messages resulted in 20500 tokens.",
        code: "context_length_exceeded",
      });
    const first = await setup([
      [toolCall("print", { size: 4_000, tag: "a" }, { id: "c1" })],
      [toolCall("print", { size: 4_000, tag: "b" }, { id: "c2" })],
      [text("Printed both.")],
      [overflow()],
      [text("## Goal\nSummary of the printing.")],
      [text("Here is the answer.")],
    ]);
    const run1 = await collect(first.runtime.runs.run({ prompt: "print a and b" }));
    expect(run1.result.status).toBe("done");
    const run2 = await collect(first.runtime.runs.run({ sessionId: run1.result.sessionId, prompt: "and now?" }));
    expect(run2.result).toMatchObject({ status: "done", text: "Here is the answer.", compactions: 1 });
    const path = await first.store.getActivePath(run1.result.sessionId);
    expect(byType(path, "compaction")).toHaveLength(1);
    // The user's new message is the latest turn and stays verbatim after the summary: no continuation is needed.
    expect(byType(path, "custom_message")).toHaveLength(0);
    expect(first.model.remaining).toBe(0);
  });

  it("gives up after one retry when the provider still says the prompt is too long", async () => {
    const overflow = () => error(400, { message: "prompt is too long: 30000 tokens > 20000 maximum" });
    const { runtime, model } = await setup([
      [toolCall("print", { size: 4_000, tag: "a" }, { id: "c1" })],
      [overflow()],
      [text("## Goal\nSummary.")],
      [overflow()],
      [text("never reached")],
    ]);
    const { result } = await collect(runtime.runs.run({ prompt: "go" }));
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(/prompt is too long/);
    expect(model.remaining).toBe(1);
  });

  it("prunes old tool outputs on the active path before resorting to a summary", async () => {
    const counter = new TokenCounter();
    await counter.load();
    const { runtime, store, model } = await setup(
      [
        (call) => {
          const prompt = JSON.stringify(promptOf(call));
          return [text(`cleared ${prompt.split(PRUNED_OUTPUT).length - 1}`)];
        },
      ],
      { context: 100_000, output: 4_000 },
    );
    // Five past turns of two 24,000-character results (about 9,600 tokens) each, the last step reporting a full context.
    const session = await store.createSession({});
    const big = (tag: string) =>
      `${tag} ${Array.from({ length: 5_000 }, (_, i) => `w${(i * 7919) % 1000}`).join(" ")}`.slice(0, 24_000);
    const perOutput = counter.text(big("x"));
    for (let t = 1; t <= 5; t++) {
      await store.appendMessage(session.id, { role: "user", content: `turn ${t}` });
      for (const k of ["a", "b"]) {
        const id = `t${t}${k}`;
        await store.appendMessage(session.id, {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: id, toolName: "print", input: {} }],
        });
        await store.appendMessage(session.id, {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: id, toolName: "print", output: { type: "text", value: big(id) } }],
        });
      }
      await store.appendMessage(session.id, {
        role: "assistant",
        content: `done ${t}`,
        ...(t === 5 ? { tokens: { input: 96_500, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 } } : {}),
      });
    }
    const fork = (await store.getSession(session.id))!.leafEntryId!;
    const { result } = await collect(runtime.runs.run({ sessionId: session.id, prompt: "turn 6" }));
    expect(result).toMatchObject({ status: "done", compactions: 0 });
    // Turns 5 and 6 are kept; of the rest the newest 40,000 tokens are protected; more than 20,000 go.
    const cleared = Number(result.text.split(" ")[1]);
    expect(cleared * perOutput).toBeGreaterThan(20_000);
    expect((10 - 2 - cleared) * perOutput).toBeLessThanOrEqual(40_000 + perOutput);
    const path = await store.getActivePath(session.id);
    const prune = byType(path, "custom").find((e) => e.type === "custom" && e.customType === PRUNE_ENTRY_TYPE);
    expect(prune?.type === "custom" && (prune.data as { toolCallIds: string[] }).toolCallIds).toContain("t1a");
    expect(byType(path, "compaction")).toHaveLength(0);
    // Stored results are untouched, and a sibling branch from before the prune still sees them in full.
    expect(JSON.stringify(await store.listEntries(session.id))).not.toContain(PRUNED_OUTPUT);
    const h2 = await setup([(call) => [text(`cleared ${JSON.stringify(promptOf(call)).split(PRUNED_OUTPUT).length - 1}`)]], {
      context: 1_000_000,
      output: 4_000,
    });
    await h2.store.importSession(await store.exportSession(session.id));
    await h2.runtime.sessions.switchLeaf(session.id, fork);
    const sibling = await collect(h2.runtime.runs.run({ sessionId: session.id, prompt: "other way" }));
    expect(sibling.result.text).toBe("cleared 0");
    expect(model.remaining).toBe(0);
  });
});

describe("manual compaction and branch summaries", () => {
  it("runtime.compact summarizes with the focus, updates an existing summary, and adds no continuation", async () => {
    const requests: string[] = [];
    const summary = (answer: string) => (call: StepContext) => {
      requests.push(userText(promptOf(call)));
      return [text(answer)];
    };
    const { runtime, store } = await setup([
      [text("First answer.")],
      summary("## Goal\nFirst summary body."),
      [text("Second answer.")],
      summary("## Goal\nUpdated summary body."),
      (call) => [text(userText(promptOf(call)).includes("Updated summary body") ? "sees summary" : "no summary")],
    ]);
    const run1 = await collect(runtime.runs.run({ prompt: "first question" }));
    const sessionId = run1.result.sessionId;
    const c1 = await runtime.sessions.compact(sessionId, { focus: "the API names" });
    expect(c1).toMatchObject({ sessionId, summarized: 2, kept: 0 });
    expect(requests[0]).toContain("the API names");
    expect(requests[0]).toContain("first question");

    await collect(runtime.runs.run({ sessionId, prompt: "second question" }));
    const c2 = await runtime.sessions.compact(sessionId);
    expect(c2.entryId).not.toBe(c1.entryId);
    // The second request updates the first summary instead of starting over.
    expect(requests[1]).toContain("<previous-summary>");
    expect(requests[1]).toContain("First summary body.");
    expect(requests[1]).toContain("second question");

    const path = await store.getActivePath(sessionId);
    expect(byType(path, "compaction").map((e) => e.type === "compaction" && (e.details as { mode: string }).mode)).toEqual([
      "manual",
      "manual",
    ]);
    expect(byType(path, "custom_message")).toHaveLength(0);
    const run3 = await collect(runtime.runs.run({ sessionId, prompt: "third" }));
    expect(run3.result.text).toBe("sees summary");
  });

  it("runtime.compact fails with a clear error, writing nothing, when there is nothing to summarize", async () => {
    const { runtime, store } = await setup([[text("hi")]]);
    const session = await store.createSession({});
    await expect(runtime.sessions.compact(session.id)).rejects.toMatchObject({ code: "context_overflow" });
    await expect(runtime.sessions.compact("00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({
      code: "session_not_found",
    });
    expect(await store.listEntries(session.id)).toHaveLength(0);
  });

  it("switchLeaf can record a branch summary of the branch left, injected when continuing on the new branch", async () => {
    let summaryRequest = "";
    let lastPrompt = "";
    const { runtime, store } = await setup([
      [text("Ready.")],
      [text("Approach A failed: the parser rejects tabs.")],
      (call) => {
        summaryRequest = userText(promptOf(call));
        return [text("## Outcome\nA failed because the parser rejects tabs.")];
      },
      (call) => {
        lastPrompt = userText(promptOf(call));
        return [text("Trying B.")];
      },
    ]);
    const run1 = await collect(runtime.runs.run({ prompt: "start" }));
    const sessionId = run1.result.sessionId;
    const fork = (await store.getSession(sessionId))!.leafEntryId!;
    await collect(runtime.runs.run({ sessionId, prompt: "try approach A" }));
    const abandonedLeaf = (await store.getSession(sessionId))!.leafEntryId!;

    const moved = await runtime.sessions.switchLeaf(sessionId, fork, { summarize: true });
    expect(moved.branchSummary).toMatchObject({ type: "branch_summary", fromId: abandonedLeaf, parentId: fork });
    expect(moved.leafId).toBe(moved.branchSummary?.id);
    expect(summaryRequest).toContain("try approach A");
    expect(summaryRequest).not.toContain('"start"');

    await collect(runtime.runs.run({ sessionId, prompt: "try approach B" }));
    expect(lastPrompt).toContain("<system-reminder>");
    expect(lastPrompt).toContain("parser rejects tabs");
    // The abandoned branch is still there, unchanged.
    expect(await store.getEntry(sessionId, abandonedLeaf)).toBeDefined();

    // Without summarize the leaf just moves.
    const plain = await runtime.sessions.switchLeaf(sessionId, abandonedLeaf);
    expect(plain).toEqual({ sessionId, leafId: abandonedLeaf });
    expect((await store.getSession(sessionId))!.leafEntryId).toBe(abandonedLeaf);
  });

  it("uses the pool's compaction model when one is configured", async () => {
    const server = await startFakeOpenAI({ script: [[text("## Goal\nSummarized by the pool model.")]] });
    servers.push(server);
    const { runtime, store } = await setup(
      [[text("Answer.")]],
      { context: 20_000, output: 2_000 },
      {
        pool: { compaction: { model: "openai-compatible/summarizer", baseURL: server.url } },
      },
    );
    const run = await collect(runtime.runs.run({ prompt: "question" }));
    const result = await runtime.sessions.compact(run.result.sessionId);
    const body = server.requests[0]?.body as {
      model: string;
      messages: Array<{ role: string; content: string }>;
      tools?: unknown;
    };
    expect(body.model).toBe("summarizer");
    expect(body.messages[0]).toEqual({ role: "system", content: SUMMARY_SYSTEM_PROMPT });
    expect(body.tools).toBeUndefined();
    const entry = await store.getEntry(run.result.sessionId, result.entryId);
    expect(entry).toMatchObject({ type: "compaction", details: { model: "openai-compatible/summarizer" } });
  });
});
