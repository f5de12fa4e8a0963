import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/model/entry.js";
import { DELETE_ENTRY_TYPE } from "../../src/session/delete-entry.js";
import { messageTrace, type TraceMessage } from "../../src/trace/message-trace.js";
import { findToolCalls, nearestRankPercentile, toolStats } from "../../src/trace/tool-stats.js";
import { pageTraceMessages } from "../../src/trace/trace-page.js";
import { parseTraceTime, traceTimestamp } from "../../src/trace/trace-time.js";
import { Chain } from "../context/entries.js";

/** A tool message for one call, as the loop writes it: duration, and an error on failure. */
function toolEntry(chain: Chain, id: string, name: string, output: string, durationMs: number, failed = false): Entry {
  return chain.message({
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: id,
        toolName: name,
        output: failed ? { type: "error-text", value: output } : { type: "text", value: output },
        ...(failed ? {} : { metadata: { lines: 3 } }),
      },
    ],
    description: name,
    durationMs,
    ...(failed ? { error: { code: "tool_failed", message: `failed: ${output}` } } : {}),
  });
}

/** Two requests: one with a thought, two parallel tool calls (one failing) and an answer; one plain. */
function session() {
  const chain = new Chain();
  const u1 = chain.user("list files");
  const s1 = chain.message({
    role: "assistant",
    content: [
      { type: "reasoning", text: "I should look." },
      { type: "text", text: "Looking." },
      { type: "tool-call", toolCallId: "c1", toolName: "list", input: { path: "." } },
      { type: "tool-call", toolCallId: "c2", toolName: "read", input: { path: "x" } },
    ],
  });
  const r1 = toolEntry(chain, "c1", "list", "a.ts b.ts", 12);
  const r2 = toolEntry(chain, "c2", "read", "no such file", 30, true);
  const s2 = chain.assistant("Two files: a.ts and b.ts.");
  const u2 = chain.user("thanks");
  const s3 = chain.assistant("You're welcome.");
  return { chain, u1, s1, r1, r2, s2, u2, s3 };
}

describe("messageTrace", () => {
  it("counts a command that exited non-zero, was killed or timed out as a failed call, with why", () => {
    const chain = new Chain();
    chain.user("build it");
    const calls = ["ok", "exit", "signal", "timeout"].map((id) => ({
      type: "tool-call" as const,
      toolCallId: id,
      toolName: "bash",
      input: {},
    }));
    chain.message({ role: "assistant", content: calls });
    const metadata: Record<string, Record<string, unknown>> = {
      ok: { exitCode: 0, signal: null, timedOut: false },
      exit: { exitCode: 2, signal: null, timedOut: false },
      signal: { exitCode: null, signal: "SIGKILL", timedOut: false },
      timeout: { exitCode: null, signal: "SIGTERM", timedOut: true },
    };
    chain.message({
      role: "tool",
      content: calls.map((c) => ({
        type: "tool-result" as const,
        toolCallId: c.toolCallId,
        toolName: "bash",
        output: { type: "text" as const, value: `output of ${c.toolCallId}` },
        metadata: metadata[c.toolCallId],
      })),
      description: "bash",
      durationMs: 5,
    });
    chain.assistant("Done.");
    const trace = messageTrace("s1", chain.entries);
    const results = trace[1]?.agentSteps[0]?.toolCalls.map((c) => [c.id, c.result?.success, c.result?.error]);
    expect(results).toEqual([
      ["ok", true, undefined],
      ["exit", false, "The command exited with code 2."],
      ["signal", false, "The command was terminated by SIGKILL."],
      ["timeout", false, "The command timed out."],
    ]);
    expect(findToolCalls(trace, { failed: true }).map((c) => c.call.id)).toEqual(["exit", "signal", "timeout"]);
  });

  it("gives each call with a result the model's reflection: its next step's reasoning, else its text", () => {
    const { chain } = session();
    const trace = messageTrace("s1", chain.entries);
    const [first] = trace[1]?.agentSteps ?? [];
    // The step after the results has no reasoning: its text is the reflection.
    expect(first?.toolCalls.map((c) => c.reflection)).toEqual(["Two files: a.ts and b.ts.", "Two files: a.ts and b.ts."]);
    const withReasoning = new Chain();
    withReasoning.user("go");
    withReasoning.message({ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "list", input: {} }] });
    toolEntry(withReasoning, "c", "list", "x".repeat(10), 1);
    withReasoning.message({
      role: "assistant",
      content: [
        { type: "reasoning", text: "y".repeat(1_200) },
        { type: "text", text: "Answer." },
      ],
    });
    const reflection = messageTrace("s1", withReasoning.entries)[1]?.agentSteps[0]?.toolCalls[0]?.reflection ?? "";
    expect(reflection).toBe(`${"y".repeat(1_000)}…`);
    // The last step's calls have none until the model speaks again.
    const open = new Chain();
    open.user("go");
    open.message({ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "list", input: {} }] });
    toolEntry(open, "c", "list", "x", 1);
    expect(messageTrace("s1", open.entries)[1]?.agentSteps[0]?.toolCalls[0]?.reflection).toBeUndefined();
  });

  it("groups a path per request: the user's message, then the answer with its steps, calls and results", () => {
    const { chain, u1, s1, r1, r2, s2, u2, s3 } = session();
    const trace = messageTrace("s1", chain.entries);
    expect(trace.map((m) => [m.role, m.id, m.requestId])).toEqual([
      ["user", u1.id, u1.id],
      ["assistant", s1.id, u1.id],
      ["user", u2.id, u2.id],
      ["assistant", s3.id, u2.id],
    ]);
    const [user, answer] = trace as [TraceMessage, TraceMessage];
    expect(user).toMatchObject({
      content: "list files",
      agentSteps: [],
      isCompleted: true,
      knowledgeReferences: [],
      sessionId: "s1",
    });
    expect(answer).toMatchObject({
      content: "Two files: a.ts and b.ts.",
      isCompleted: true,
      entryIds: [s1.id, r1.id, r2.id, s2.id],
    });
    expect(answer.agentSteps.map((s) => [s.iteration, s.thought, s.toolCalls.length])).toEqual([
      [0, "I should look.\n\nLooking.", 2],
      [1, "", 0],
    ]);
    expect(answer.agentSteps[0]?.toolCalls).toEqual([
      {
        id: "c1",
        name: "list",
        args: { path: "." },
        result: { success: true, output: "a.ts b.ts", data: { lines: 3 } },
        reflection: "Two files: a.ts and b.ts.",
        durationMs: 12,
      },
      {
        id: "c2",
        name: "read",
        args: { path: "x" },
        result: { success: false, output: "no such file", error: "failed: no such file" },
        reflection: "Two files: a.ts and b.ts.",
        durationMs: 30,
      },
    ]);
  });

  it("timestamps have nanoseconds: the millisecond, then the rank among equal times before it on the path", () => {
    const { chain, s1, s2 } = session();
    const trace = messageTrace("s1", chain.entries);
    // Every entry of the chain has the same millisecond, so the ranks are the path positions.
    expect(trace.map((m) => m.createdAt)).toEqual([
      "2026-01-01T00:00:00.000000000Z",
      "2026-01-01T00:00:00.000000001Z",
      "2026-01-01T00:00:00.000000005Z",
      "2026-01-01T00:00:00.000000006Z",
    ]);
    expect(trace[1]?.updatedAt).toBe(traceTimestamp(s2.timestamp, 4));
    expect(trace[1]?.agentSteps[0]?.timestamp).toBe(traceTimestamp(s1.timestamp, 1));
    // Appending more never changes what was computed (stable cursors).
    chain.user("more");
    expect(messageTrace("s1", chain.entries).slice(0, 4)).toEqual(trace);
  });

  it("an answer still calling tools is not completed and has no content; a missing result is null", () => {
    const chain = new Chain();
    chain.user("go");
    chain.call(["c1"], "bash");
    const [, answer] = messageTrace("s", chain.entries);
    expect(answer).toMatchObject({ isCompleted: false, content: "" });
    expect(answer?.agentSteps[0]?.toolCalls[0]).toMatchObject({ name: "bash", result: null, durationMs: 0 });
  });

  it("leaves out what delete entries delete, without renumbering what remains; other branches keep it", () => {
    const { chain, u1, s1, r1, r2, s2, u2, s3 } = session();
    const branch = chain.entries.slice();
    chain.entries.push({
      type: "custom",
      id: "del1",
      parentId: s3.id,
      timestamp: s3.timestamp,
      customType: DELETE_ENTRY_TYPE,
      data: { entryIds: [s1.id, r1.id, r2.id, s2.id], messageId: s1.id },
    });
    const after = messageTrace("s", chain.entries);
    expect(after.map((m) => m.id)).toEqual([u1.id, u2.id, s3.id]);
    expect(after[2]?.createdAt).toBe(messageTrace("s", branch)[3]?.createdAt);
    expect(messageTrace("s", branch)).toHaveLength(4);
  });
});

describe("pageTraceMessages", () => {
  it("pages newest first, strictly before the cursor, with a next cursor until the last page", () => {
    const { chain } = session();
    const trace = messageTrace("s", chain.entries);
    const p1 = pageTraceMessages(trace, { limit: 3 });
    expect(p1.messages.map((m) => m.createdAt)).toEqual(
      trace
        .slice(1)
        .reverse()
        .map((m) => m.createdAt),
    );
    expect(p1.nextCursor).toBe(trace[1]?.createdAt);
    const p2 = pageTraceMessages(trace, { limit: 3, before: parseTraceTime(p1.nextCursor as string) });
    expect(p2).toEqual({ messages: [trace[0]] });
    expect(pageTraceMessages(trace, { limit: 4 }).nextCursor).toBeUndefined();
    expect(pageTraceMessages(trace, { limit: 9, before: parseTraceTime(trace[0]?.createdAt as string) }).messages).toEqual([]);
  });
});

describe("parseTraceTime", () => {
  it("reads RFC 3339 with up to nanoseconds and any offset, refusing what is not one", () => {
    expect(parseTraceTime("1970-01-01T00:00:01.000000002Z")).toBe(1_000_000_002n);
    expect(parseTraceTime("1970-01-01T00:00:01.5Z")).toBe(1_500_000_000n);
    expect(parseTraceTime("1970-01-01T01:00:01+01:00")).toBe(1_000_000_000n);
    expect(parseTraceTime("1970-01-01t00:00:00-00:30")).toBe(1_800_000_000_000n);
    for (const bad of [
      "",
      "yesterday",
      "2026-02-31T00:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-01T00:00:00",
      "2026-01-01T00:00:00.1234567891Z",
      "2026-01-01T00:00:00+25:00",
    ]) {
      expect(parseTraceTime(bad), bad).toBeUndefined();
    }
    expect(parseTraceTime(traceTimestamp("2026-01-01T00:00:00.123Z", 7))).toBe(
      BigInt(Date.parse("2026-01-01T00:00:00Z") / 1000) * 1_000_000_000n + 123_000_007n,
    );
  });
});

describe("tool stats and tool call search", () => {
  it("counts, failures and nearest-rank durations per tool, over finished calls", () => {
    const chain = new Chain();
    chain.user("go");
    const ids = Array.from({ length: 20 }, (_, i) => `c${i}`);
    chain.call(ids, "read");
    for (const [i, id] of ids.entries()) toolEntry(chain, id, "read", "x", (i + 1) * 10, i === 19);
    chain.call(["p1"], "bash");
    const [, answer] = messageTrace("s", chain.entries);
    expect(toolStats(answer ? [answer] : [])).toEqual([
      { name: "read", count: 20, failures: 1, p50Ms: 100, p95Ms: 190, maxMs: 200, totalMs: 2100 },
    ]);
    expect(nearestRankPercentile([5], 95)).toBe(5);
  });

  it("finds failed (or successful) calls, optionally of one tool, oldest first", () => {
    const { chain, s1 } = session();
    const trace = messageTrace("s", chain.entries);
    expect(findToolCalls(trace, { failed: true }).map((f) => [f.messageId, f.iteration, f.call.id])).toEqual([[s1.id, 0, "c2"]]);
    expect(findToolCalls(trace, { failed: false }).map((f) => f.call.id)).toEqual(["c1"]);
    expect(findToolCalls(trace, { tool: "list" }).map((f) => f.call.id)).toEqual(["c1"]);
    expect(findToolCalls(trace, { failed: true, tool: "list" })).toEqual([]);
    expect(findToolCalls(trace).map((f) => f.call.id)).toEqual(["c1", "c2"]);
  });
});
