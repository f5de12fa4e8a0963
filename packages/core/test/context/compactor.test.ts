import { type StepContext, scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { planCompaction } from "../../src/context/compactor.js";
import { Summarizer } from "../../src/context/summarizer.js";
import {
  fileOps,
  SUMMARY_TOOL_OUTPUT_CHARS,
  serializeMessage,
  stripFileLists,
  summaryRequest,
  withFileLists,
} from "../../src/context/summary-prompt.js";
import type { Message } from "../../src/model/message.js";
import { compact as compactContext } from "../../src/runtime/write-compaction.js";
import { buildContext } from "../../src/session/context.js";
import type { Store } from "../../src/store/store.js";
import { Chain, charCount } from "./entries.js";

function recordingSummarizer(answer: (request: string) => string) {
  const requests: string[] = [];
  const step = (call: StepContext) => {
    const prompt = (call as { options: { prompt: Array<{ content: Array<{ text: string }> }> } }).options.prompt;
    const request = prompt[1]!.content[0]!.text;
    requests.push(request);
    return [text(answer(request))];
  };
  const summarizer = new Summarizer({
    model: {
      ref: "testkit/summary",
      model: scriptedModel(Array.from({ length: 20 }, () => step)),
      info: { limit: { context: 100_000, output: 4_000 } },
    },
    count: (t) => t.length,
    clock: { now: () => 0, sleep: async () => {} },
    retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0, jitter: 0, streamIdleTimeoutMs: 0 },
    signal: new AbortController().signal,
  });
  return { summarizer, requests };
}

function store(chain: Chain): Store {
  const append = async (fields: Record<string, unknown>) => {
    const entry = {
      id: `s${chain.entries.length}`,
      parentId: chain.entries.at(-1)!.id,
      timestamp: "2026-01-01T00:00:00.000Z",
      ...fields,
    };
    chain.entries.push(entry as never);
    return entry;
  };
  return {
    appendCompaction: (_: string, c: Record<string, unknown>) => append({ type: "compaction", ...c }),
    appendEntry: (_: string, e: Record<string, unknown>) => append(e),
  } as unknown as Store;
}

describe("the compactor", () => {
  it("gives a split turn its own short summary beside the history's, and lists the files from the tool calls", async () => {
    const c = new Chain();
    c.user("earlier question");
    c.assistant("earlier answer");
    c.user("refactor the parser");
    c.message({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "r1", toolName: "read", input: { path: "src/parser.ts" } }],
    });
    c.result("r1", "x".repeat(300));
    c.message({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "e1", toolName: "edit", input: { path: "src/lexer.ts" } }],
    });
    c.result("e1", "edited", "edit");
    const kept = c.call(["r2"]);
    c.result("r2", "y".repeat(20));
    const { summarizer, requests } = recordingSummarizer((r) =>
      r.includes("beginning of a turn") ? "TURN SUMMARY" : "HISTORY SUMMARY",
    );
    const outcome = await compactContext({
      store: store(c),
      sessionId: "s",
      state: buildContext(c.entries),
      summarizer,
      count: charCount,
      keepTokens: 35,
      tokensBefore: 1234,
      mode: "manual",
      continuation: true,
    });
    expect(outcome.entry.firstKeptEntryId).toBe(kept.id);
    expect(outcome.splitTurn).toBe(true);
    expect(requests).toHaveLength(2);
    const history = requests.find((r) => r.includes("earlier question"))!;
    expect(history).toContain("## Constraints and preferences");
    expect(history).not.toContain("refactor the parser");
    const turn = requests.find((r) => r.includes("refactor the parser"))!;
    expect(turn).toContain("beginning of a turn");
    expect(outcome.entry.summary).toMatch(/HISTORY SUMMARY[\s\S]*## Current turn[\s\S]*TURN SUMMARY/);
    expect(outcome.entry.summary).toContain("read: src/parser.ts");
    expect(outcome.entry.summary).toContain("modified: src/lexer.ts");
    expect(outcome.entry.tokensBefore).toBe(1234);
    expect(outcome.entry.details).toMatchObject({
      mode: "manual",
      splitTurn: true,
      files: { read: ["src/parser.ts"], modified: ["src/lexer.ts"] },
    });
    // The kept tail ends with a tool result, so the model is told to continue (as a synthetic reminder).
    expect(outcome.continuation).toMatchObject({ type: "custom_message", customType: "arbor.continue" });
    expect(outcome.state.items.at(outcome.state.length - 1)?.message).toMatchObject({ role: "user", synthetic: true });
  });

  it("updates the previous summary, carrying its file lists forward", async () => {
    const c = new Chain();
    c.user("one");
    c.message({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "w1", toolName: "write", input: { path: "a.md" } }],
    });
    c.result("w1", "ok", "write");
    /** An automatic compaction of everything so far. */
    const compactAll = (summarizer: ReturnType<typeof recordingSummarizer>["summarizer"]) =>
      compactContext({
        store: store(c),
        sessionId: "s",
        state: buildContext(c.entries),
        summarizer,
        count: charCount,
        keepTokens: 0,
        tokensBefore: 0,
        mode: "auto",
        continuation: false,
      });
    const first = recordingSummarizer(() => "FIRST");
    const o1 = await compactAll(first.summarizer);
    c.user("two");
    c.assistant("answer two");
    const second = recordingSummarizer(() => "SECOND");
    const o2 = await compactAll(second.summarizer);
    expect(o1.entry.summary).toContain("modified: a.md");
    expect(second.requests[0]).toContain("<previous-summary>\nFIRST\n</previous-summary>");
    expect(second.requests[0]).not.toContain("files-from-tool-calls");
    expect(o2.entry.summary).toMatch(/^SECOND[\s\S]*modified: a\.md/);
  });
});

describe("summary prompts", () => {
  it("ask for the structured sections, fresh or as an update, with an optional focus", () => {
    const fresh = summaryRequest({ conversation: "[user]: hi" });
    for (const section of [
      "## Goal",
      "## Constraints and preferences",
      "### Done",
      "### In progress",
      "### Blocked",
      "## Key decisions",
      "## Next steps",
      "## Critical context",
      "### Read",
      "### Modified",
    ]) {
      expect(fresh).toContain(section);
    }
    expect(fresh).toContain("Provide a detailed prompt for continuing our conversation above");
    const update = summaryRequest({ conversation: "[user]: more", previousSummary: "OLD", focus: "the database schema" });
    expect(update).toContain("<previous-summary>\nOLD\n</previous-summary>");
    expect(update).toContain("update the previous summary");
    expect(update).toContain("focus on: the database schema");
  });

  it("cut long tool outputs, mark reminders, and list files exactly", () => {
    const tool: Message = {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "t", toolName: "bash", output: { type: "text", value: "z".repeat(10_000) } }],
    };
    const line = serializeMessage(tool);
    expect(line.length).toBeLessThan(SUMMARY_TOOL_OUTPUT_CHARS + 100);
    expect(line).toContain("more characters not shown");
    const reminder: Message = {
      role: "user",
      synthetic: true,
      content: [{ type: "text", text: "<system-reminder>\nnote\n</system-reminder>" }],
    };
    expect(serializeMessage(reminder)).toBe("[system reminder]: note");
    const ops = fileOps(
      [
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: "1", toolName: "read", input: { path: "b.ts" } },
            { type: "tool-call", toolCallId: "2", toolName: "read", input: { path: "a.ts" } },
            { type: "tool-call", toolCallId: "3", toolName: "edit", input: { path: "a.ts" } },
            { type: "tool-call", toolCallId: "4", toolName: "bash", input: { command: "ls" } },
          ],
        },
      ],
      { read: ["c.ts"], modified: [] },
    );
    expect(ops).toEqual({ read: ["b.ts", "c.ts"], modified: ["a.ts"] });
    const s = withFileLists("SUMMARY", ops);
    expect(stripFileLists(s)).toBe("SUMMARY");
    expect(withFileLists("S", { read: [], modified: [] })).toBe("S");
  });
});

describe("a compaction plan", () => {
  it("writes nothing and says which entries to append: a continuation only when the context does not end with the user's own words", async () => {
    const c = new Chain();
    c.user("first question");
    c.assistant("x".repeat(200));
    c.user("second question");
    c.assistant("y".repeat(200));
    const { summarizer } = recordingSummarizer(() => "SUMMARY");
    const request = {
      summarizer,
      count: charCount,
      keepTokens: 0,
      tokensBefore: 500,
      mode: "auto" as const,
      continuation: true,
    };
    const before = c.entries.length;
    const plan = await planCompaction({ ...request, state: buildContext(c.entries) });
    expect(c.entries).toHaveLength(before);
    expect(plan.entries.map((e) => e.type)).toEqual(["compaction", "custom_message"]);
    expect(plan.entries[0]).toMatchObject({ firstKeptEntryId: null, details: { mode: "auto", cost: 0 } });

    // The user's new message is kept verbatim at the end: it is what the model answers next.
    c.user("third question");
    const keepLast = await planCompaction({ ...request, keepTokens: 20, state: buildContext(c.entries) });
    expect(keepLast.entries.map((e) => e.type)).toEqual(["compaction"]);
    expect(keepLast.kept).toBe(1);
  });
});
