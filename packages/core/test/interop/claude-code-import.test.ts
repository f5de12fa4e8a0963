import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { type ClaudeFile, convertClaudeCodeSession } from "../../src/interop/claude-code/import.js";
import { type SessionExport, SessionExportSchema } from "../../src/store/export-format.js";
import { branchPoints, countParts, countRole, countType, fixture, parts, rawBlocks, rawLines } from "./fixtures.js";

type Raw = Record<string, unknown>;

const file = (rel: string): ClaudeFile => ({ name: basename(rel), text: fixture(rel) });

/** The fixtures, each with its sub-agent files and the number of sub-agent runs it holds. */
const CASES = [
  { main: "claude-code/v1.0.108-inline-sidechain.jsonl", agents: [], subTraces: 2 },
  {
    main: "claude-code/v2.0.64-warmup-agents/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
    agents: ["claude-code/v2.0.64-warmup-agents/agent-36541525.jsonl", "claude-code/v2.0.64-warmup-agents/agent-50243ee8.jsonl"],
    subTraces: 2,
  },
  { main: "claude-code/v2.0.69-thinking.jsonl", agents: [], subTraces: 0 },
  {
    main: "claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl",
    agents: ["claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl"],
    subTraces: 1,
  },
  { main: "claude-code/v2.1.19-agent-progress.jsonl", agents: [], subTraces: 1 },
  { main: "claude-code/v2.1.36-compaction.jsonl", agents: [], subTraces: 0 },
] as const;

const isConversation = (l: Raw) => l.type === "user" || l.type === "assistant";
const content = (l: Raw) => (l.message as { content?: unknown } | undefined)?.content;

/** Assistant messages: one per model response, whose blocks Claude Code writes as lines sharing `message.id`. */
function responses(lines: Raw[]): number {
  const ids = lines.filter((l) => l.type === "assistant").map((l, i) => (l.message as { id?: string }).id ?? `line ${i}`);
  return new Set(ids).size;
}

/** What the main conversation should hold, counted from the raw lines. */
function expected(lines: Raw[]) {
  const main = lines.filter((l) => isConversation(l) && l.isSidechain !== true);
  const userTurns = main.filter((l) => {
    if (l.type !== "user" || l.isCompactSummary === true) return false;
    const c = content(l);
    return typeof c === "string" || (Array.isArray(c) && c.some((b: Raw) => b.type !== "tool_result"));
  });
  const toolTurns = main.filter(
    (l) => l.type === "user" && Array.isArray(content(l)) && (content(l) as Raw[]).some((b) => b.type === "tool_result"),
  );
  return {
    assistant: responses(main),
    user: userTurns.length,
    tool: toolTurns.length,
    toolCalls: rawBlocks(main, "tool_use").length,
    toolResults: rawBlocks(main, "tool_result").length,
    reasoning: rawBlocks(main, "thinking").length,
    compactions: lines.filter((l) => l.type === "system" && l.subtype === "compact_boundary").length,
  };
}

/** The entries root → leaf. */
function activePath(s: SessionExport) {
  const byId = new Map(s.entries.map((e) => [e.id, e]));
  const path: SessionExport["entries"] = [];
  for (let e = byId.get(s.session.leafEntryId ?? ""); e; e = e.parentId === null ? undefined : byId.get(e.parentId))
    path.unshift(e);
  return path;
}

/** Calls on the path that no result on the path answers. */
function unanswered(path: SessionExport["entries"]): string[] {
  const ps = path.flatMap((e) =>
    e.type === "message" ? (e.message.content as Array<{ type: string; toolCallId?: string }>) : [],
  );
  const answered = new Set(ps.filter((p) => p.type === "tool-result").map((p) => p.toolCallId));
  return ps.filter((p) => p.type === "tool-call" && !answered.has(p.toolCallId)).map((p) => p.toolCallId as string);
}

function convert(c: (typeof CASES)[number]) {
  return convertClaudeCodeSession(file(c.main), c.agents.map(file));
}

describe("Claude Code import", () => {
  for (const c of CASES) {
    it(`${basename(c.main)}: every message, tool call and result and sub-agent, on one path`, () => {
      const lines = rawLines(c.main);
      const { sessions } = convert(c);
      for (const s of sessions) expect(SessionExportSchema.safeParse(s).success, s.session.id).toBe(true);
      const [main, ...subs] = sessions as [SessionExport, ...SessionExport[]];
      const want = expected(lines);
      expect({
        assistant: countRole(main, "assistant"),
        user: countRole(main, "user"),
        tool: countRole(main, "tool"),
        toolCalls: countParts(main, "tool-call"),
        toolResults: countParts(main, "tool-result"),
        reasoning: countParts(main, "reasoning"),
        compactions: countType(main, "compaction"),
      }).toEqual(want);
      // None of these files holds a rewind: parallel tool calls (each result hung on its own call's
      // line) are joined, so the whole conversation is the active path and every call is answered on it.
      for (const s of sessions) {
        expect(branchPoints(s.entries), s.session.id).toBe(0);
        expect(activePath(s), s.session.id).toHaveLength(s.entries.length);
        expect(unanswered(activePath(s)), s.session.id).toEqual([]);
      }
      expect(subs).toHaveLength(c.subTraces);
      for (const s of subs) {
        expect(s.session.parentSessionId).toBe(main.session.id);
        expect(s.session.id.startsWith(`${main.session.id}@delegate-`)).toBe(true);
      }
      expect(main.session.cwd).toBe(lines.find((l) => typeof l.cwd === "string")?.cwd);
    });
  }

  it("inline sidechains (1.0) become sub-traces holding their own tool calls, each linked to its Task call", () => {
    const c = CASES[0];
    const lines = rawLines(c.main);
    const [main, ...subs] = convert(c).sessions as [SessionExport, ...SessionExport[]];
    const side = lines.filter((l) => isConversation(l) && l.isSidechain === true);
    expect(subs.reduce((n, s) => n + countRole(s, "assistant"), 0)).toBe(responses(side));
    expect(subs.reduce((n, s) => n + countParts(s, "tool-call"), 0)).toBe(rawBlocks(side, "tool_use").length);
    const launched = main.entries.flatMap((e) =>
      e.type === "message" && e.message.role === "assistant"
        ? e.message.content.filter((p) => p.type === "tool-call" && (p as { subSessionId?: string }).subSessionId)
        : [],
    );
    expect(launched.map((p) => (p as { subSessionId?: string }).subSessionId).sort()).toEqual(
      subs.map((s) => s.session.id).sort(),
    );
    for (const s of subs) expect(s.session.task).toMatch(/^(Examine|Analyze) /);
  });

  it("2.1 sub-agent files and progress relays become sub-traces with every tool call", () => {
    const files = convert(CASES[3]).sessions;
    const agentLines = rawLines(CASES[3].agents[0]);
    expect(countParts(files[1] as SessionExport, "tool-call")).toBe(rawBlocks(agentLines, "tool_use").length);
    const [main, sub] = convert(CASES[4]).sessions as [SessionExport, SessionExport];
    const relayed = new Map<string, Raw>();
    for (const l of rawLines(CASES[4].main)) {
      const d = l.data as { type?: string; message?: Raw } | undefined;
      if (l.type === "progress" && d?.type === "agent_progress" && d.message) relayed.set(d.message.uuid as string, d.message);
    }
    expect(countParts(sub, "tool-call")).toBe(rawBlocks([...relayed.values()], "tool_use").length);
    expect(countRole(sub, "assistant")).toBe(responses([...relayed.values()]));
    expect((sub.session as { importedFrom?: { toolCallId?: string } }).importedFrom?.toolCallId).toBe(
      "toolu_0141a8id8CWHmsbTaZRTD38W",
    );
    expect(main.session.id).toBe("claude-code-163396cf-348b-4175-90f5-5ca0986ac0f1");
  });

  it("a compaction keeps the summary written after it, under the entry it followed", () => {
    const lines = rawLines(CASES[5].main);
    const boundary = lines.find((l) => l.subtype === "compact_boundary") as Raw;
    const summaryLine = lines.find((l) => l.isCompactSummary === true) as Raw;
    const [main] = convert(CASES[5]).sessions as [SessionExport];
    const compaction = main.entries.find((e) => e.type === "compaction");
    expect(compaction).toMatchObject({ id: boundary.uuid, parentId: boundary.logicalParentUuid, tokensBefore: 174247 });
    const text = content(summaryLine);
    const summary = typeof text === "string" ? text : (text as Raw[]).map((b) => b.text).join("");
    expect(compaction?.type === "compaction" && compaction.summary).toBe(summary);
    // The first conversation line after the summary (past a hook's progress line) continues from the compaction.
    let next = lines.find((l) => l.parentUuid === summaryLine.uuid) as Raw;
    while (!isConversation(next)) next = lines.find((l) => l.parentUuid === next.uuid) as Raw;
    expect(main.entries.find((e) => e.id === next.uuid)?.parentId).toBe(boundary.uuid);
  });

  it("lines it has no place for are counted by kind, with the raw numbers", () => {
    const lines = rawLines(CASES[5].main);
    const { skipped } = convert(CASES[5]);
    const progress = (t: string) => lines.filter((l) => l.type === "progress" && (l.data as Raw).type === t).length;
    expect(skipped['progress line "bash_progress" (live output shown while a tool ran)']).toBe(progress("bash_progress"));
    expect(skipped['progress line "hook_progress" (live output shown while a tool ran)']).toBe(progress("hook_progress"));
    expect(skipped["file-history-snapshot line (undo data for edited files)"]).toBe(
      lines.filter((l) => l.type === "file-history-snapshot").length,
    );
  });

  it("parallel calls are one response with its results in a row; a rewind stays a branch", () => {
    const at = (s: number) => `2026-03-01T00:00:${String(s).padStart(2, "0")}.000Z`;
    const line = (uuid: string, parentUuid: string | null, s: number, message: Raw) =>
      JSON.stringify({ uuid, parentUuid, type: message.role, sessionId: "sess-1", timestamp: at(s), cwd: "/w", message });
    const call = (id: string) => ({
      role: "assistant",
      id: "resp-1",
      content: [{ type: "tool_use", id, name: "Read", input: { id } }],
    });
    const result = (id: string) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `read ${id}` }] });
    const text = [
      line("u1", null, 1, { role: "user", content: "read a and b" }),
      line("a1", "u1", 2, { role: "assistant", id: "resp-1", content: [{ type: "text", text: "reading" }] }),
      line("a2", "a1", 3, call("A")),
      line("a3", "a2", 4, call("B")),
      // Each result hangs on the line of its own call, as Claude Code writes them.
      line("r1", "a2", 5, result("A")),
      line("r2", "a3", 6, result("B")),
      line("a4", "r2", 7, { role: "assistant", id: "resp-2", content: [{ type: "text", text: "done" }] }),
      // The user went back to the first prompt and asked something else.
      line("u2", "u1", 8, { role: "user", content: "no, read c" }),
      line("a5", "u2", 9, { role: "assistant", id: "resp-3", content: [{ type: "text", text: "ok" }] }),
    ].join("\n");
    const [s] = convertClaudeCodeSession({ name: "sess-1.jsonl", text }).sessions as [SessionExport];
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ["u1", null],
      ["a1", "u1"],
      ["r1", "a1"],
      ["r2", "r1"],
      ["a4", "r2"],
      ["u2", "u1"],
      ["a5", "u2"],
    ]);
    const response = s.entries[1];
    expect(response?.type === "message" && response.message.content.map((p) => p.type)).toEqual([
      "text",
      "tool-call",
      "tool-call",
    ]);
    expect(branchPoints(s.entries)).toBe(1);
    expect(s.session.leafEntryId).toBe("a5");

    // Tools that run while the response streams: a result is written between two calls of it.
    const interleaved = [
      line("u1", null, 1, { role: "user", content: "read a and b" }),
      line("a2", "u1", 2, call("A")),
      line("r1", "a2", 3, result("A")),
      line("a3", "r1", 4, call("B")),
      line("r2", "a3", 5, result("B")),
      line("a4", "r2", 6, { role: "assistant", id: "resp-2", content: [{ type: "text", text: "done" }] }),
    ].join("\n");
    const [t] = convertClaudeCodeSession({ name: "sess-1.jsonl", text: interleaved }).sessions as [SessionExport];
    expect(t.entries.map((e) => [e.id, e.parentId])).toEqual([
      ["u1", null],
      ["a2", "u1"],
      ["r1", "a2"],
      ["r2", "r1"],
      ["a4", "r2"],
    ]);
  });

  it("keeps images: inline data and URLs become file parts", () => {
    const line = JSON.stringify({
      uuid: "u1",
      parentUuid: null,
      type: "user",
      sessionId: "img",
      timestamp: "2026-03-01T00:00:00.000Z",
      message: {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } },
          { type: "image", source: { type: "url", url: "https://example.invalid/cat.png" } },
        ],
      },
    });
    const [s] = convertClaudeCodeSession({ name: "img.jsonl", text: line }).sessions as [SessionExport];
    const files = parts(s).filter((p) => p.type === "file");
    expect(files).toEqual([
      { type: "file", mediaType: "image/png", data: "aGVsbG8=" },
      { type: "file", mediaType: "image/*", url: "https://example.invalid/cat.png" },
    ]);
  });

  it("refuses a file with no conversation line", () => {
    expect(() => convertClaudeCodeSession({ name: "x.jsonl", text: '{"type":"summary","summary":"s"}\n' })).toThrow(
      /x\.jsonl is not a Claude Code transcript/,
    );
  });
});
