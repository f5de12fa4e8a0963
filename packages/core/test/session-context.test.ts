import { describe, expect, it } from "vitest";
import type { Entry } from "../src/model/entry.js";
import { applyEntry, buildContext, contextMessages } from "../src/session/context.js";
import { EMPTY_CONTEXT } from "../src/session/context-state.js";

let n = 0;
const ts = "2026-01-01T00:00:00.000Z";
function msg(role: "user" | "assistant", text: string, parentId: string | null = null): Entry {
  return { type: "message", id: `m${++n}`, parentId, timestamp: ts, message: { role, content: [{ type: "text", text }] } };
}
function entry(e: Record<string, unknown>): Entry {
  return { id: `e${++n}`, parentId: null, timestamp: ts, ...e } as Entry;
}
const texts = (path: Entry[]) =>
  contextMessages(buildContext(path)).map((m) =>
    (m.content[0] as { text: string }).text.replace(/^<system-reminder>\n|\n<\/system-reminder>$/g, ""),
  );

describe("context builder", () => {
  it("sends messages in path order and applies model and thinking changes", () => {
    const path = [
      msg("user", "hi"),
      entry({ type: "model_change", model: "openai/gpt-4o" }),
      entry({ type: "thinking_level_change", thinkingLevel: "high" }),
      entry({ type: "custom", customType: "x", data: 1 }),
      entry({ type: "label", targetId: "m1", label: "l" }),
      entry({ type: "session_info", title: "t" }),
      msg("assistant", "hello"),
      entry({ type: "custom_message", customType: "n", content: "hidden", display: true, includeInContext: false }),
      entry({ type: "custom_message", customType: "n", content: "visible", display: true, includeInContext: true }),
    ];
    const state = buildContext(path);
    expect(state.model).toBe("openai/gpt-4o");
    expect(state.thinkingLevel).toBe("high");
    expect(texts(path)).toEqual(["hi", "hello", "visible"]);
    const last = contextMessages(state)[2];
    expect(last).toMatchObject({ role: "user", synthetic: true });
    expect(state.leafId).toBe(path.at(-1)?.id);
  });

  it("replaces compacted history with the summary and keeps from firstKeptEntryId", () => {
    const [a, b, c] = [msg("user", "a"), msg("assistant", "b"), msg("user", "c")];
    const comp = entry({ type: "compaction", summary: "S1", firstKeptEntryId: b.id, tokensBefore: 10 });
    const d = msg("assistant", "d");
    const path = [a, b, c, comp, d];
    expect(texts(path)).toEqual([expect.stringContaining("S1"), "b", "c", "d"]);
    expect(contextMessages(buildContext(path))[0]).toMatchObject({ role: "user", synthetic: true });
    const none = entry({ type: "compaction", summary: "S0", firstKeptEntryId: null, tokensBefore: 10 });
    expect(texts([a, b, none, d])).toEqual([expect.stringContaining("S0"), "d"]);
  });

  it("a second compaction never drops what the first one kept", () => {
    const [a, b, c] = [msg("user", "a"), msg("assistant", "b"), msg("user", "c")];
    const c1 = entry({ type: "compaction", summary: "S1", firstKeptEntryId: b.id, tokensBefore: 10 });
    const d = msg("assistant", "d");
    // The kept entry `a` was summarized by c1: nothing currently in context may be dropped.
    const c2 = entry({ type: "compaction", summary: "S2", firstKeptEntryId: a.id, tokensBefore: 10 });
    expect(texts([a, b, c, c1, d, c2])).toEqual([expect.stringContaining("S2"), expect.stringContaining("S1"), "b", "c", "d"]);
    const c3 = entry({ type: "compaction", summary: "S3", firstKeptEntryId: c.id, tokensBefore: 10 });
    expect(texts([a, b, c, c1, d, c3])).toEqual([expect.stringContaining("S3"), "c", "d"]);
  });

  it("keeps every message in context or covered by the summary after any number of compactions", () => {
    let seed = 7;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    for (let round = 0; round < 200; round++) {
      const path: Entry[] = [];
      let state = EMPTY_CONTEXT;
      for (let i = 0; i < 40; i++) {
        let e: Entry;
        if (i > 3 && rand(6) === 0) {
          const inContext = Array.from({ length: state.length }, (_, j) => state.items[j]?.entryId as string);
          const pool = rand(3) === 0 ? path.map((p) => p.id) : inContext;
          const kept = pool.length && rand(5) ? (pool[rand(pool.length)] as string) : null;
          e = entry({ type: "compaction", summary: `S${i}`, firstKeptEntryId: kept, tokensBefore: 1 });
        } else {
          e = msg(i % 2 ? "assistant" : "user", `t${i}`);
        }
        path.push(e);
        state = applyEntry(state, e);
      }
      const inContext = new Set(Array.from({ length: state.length }, (_, j) => state.items[j]?.entryId));
      const summaryAt = path.findIndex((p) => p.id === state.items[0]?.entryId && p.type === "compaction");
      path.forEach((p, i) => {
        if (p.type !== "message") return;
        // Either still in context, or before the compaction whose summary opens the context.
        expect(inContext.has(p.id) || (summaryAt >= 0 && i < summaryAt)).toBe(true);
      });
      expect(contextMessages(state)).toEqual(contextMessages(buildContext(path)));
    }
  });

  it("is incremental: extending an older state leaves newer states intact", () => {
    const [a, b] = [msg("user", "a"), msg("assistant", "b")];
    const s1 = buildContext([a]);
    const s2 = applyEntry(s1, b);
    const branch = msg("assistant", "branch");
    const s2b = applyEntry(s1, branch);
    expect(contextMessages(s2).map((m) => (m.content[0] as { text: string }).text)).toEqual(["a", "b"]);
    expect(contextMessages(s2b).map((m) => (m.content[0] as { text: string }).text)).toEqual(["a", "branch"]);
    expect(contextMessages(s1)).toHaveLength(1);
    // Appending to the newest state reuses its buffer instead of copying the history.
    const s3 = applyEntry(s2, msg("user", "c"));
    expect(s3.items).toBe(s2.items);
  });

  it("injects branch summaries as system reminders", () => {
    const a = msg("user", "a");
    const bs = entry({ type: "branch_summary", fromId: a.id, summary: "explored X" });
    const out = contextMessages(buildContext([a, bs]));
    expect(out[1]).toMatchObject({ role: "user", synthetic: true });
    expect((out[1]!.content[0] as { text: string }).text).toMatch(
      /^<system-reminder>[\s\S]*explored X[\s\S]*<\/system-reminder>$/,
    );
  });
});

describe("tool calls a crash left without a result", () => {
  const call = (id: string) => ({ type: "tool-call" as const, toolCallId: id, toolName: "bash", input: { command: "sleep 60" } });
  const result = (id: string) => ({
    type: "tool-result" as const,
    toolCallId: id,
    toolName: "bash",
    output: { type: "text" as const, value: "ok" },
  });
  const asEntry = (message: unknown): Entry => entry({ type: "message", message });

  it("answers them as interrupted when the next turn starts, so every call is paired with one result", () => {
    const path = [
      asEntry({ role: "user", content: [{ type: "text", text: "run two" }] }),
      asEntry({ role: "assistant", content: [call("c1"), call("c2")] }),
      asEntry({ role: "tool", content: [result("c1")] }),
      // The process died while c2 ran; the next prompt continues the session.
      asEntry({ role: "user", content: [{ type: "text", text: "go on" }] }),
    ];
    const messages = contextMessages(buildContext(path));
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(messages[3]).toMatchObject({
      role: "tool",
      synthetic: true,
      content: [
        { toolCallId: "c2", toolName: "bash", output: { type: "error-text", value: "[Tool execution was interrupted]" } },
      ],
    });
    for (const [i, m] of messages.entries()) {
      if (m.role !== "assistant") continue;
      const calls = m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
      const answered = messages
        .slice(i + 1)
        .flatMap((r) => (r.role === "tool" ? r.content.map((p) => p.toolCallId) : []))
        .filter((id) => calls.includes(id));
      expect(answered.sort()).toEqual(calls.sort());
    }
  });

  it("leaves answered calls and a call still running alone", () => {
    const done = [
      asEntry({ role: "user", content: [{ type: "text", text: "x" }] }),
      asEntry({ role: "assistant", content: [call("a")] }),
      asEntry({ role: "tool", content: [result("a")] }),
      asEntry({ role: "assistant", content: [{ type: "text", text: "done" }] }),
    ];
    expect(contextMessages(buildContext(done)).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const running = done.slice(0, 2);
    expect(contextMessages(buildContext(running)).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(buildContext(running).openCalls).toEqual([{ toolCallId: "a", toolName: "bash" }]);
  });
});
