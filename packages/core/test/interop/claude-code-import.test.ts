import { basename } from "node:path";
import { type ClaudeFile, convertClaudeCodeSession, type SessionExport, SessionExportSchema } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { branchPoints, countParts, countRole, countType, fixture, rawBlocks, rawLines } from "./fixtures.js";

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
    assistant: main.filter((l) => l.type === "assistant").length,
    user: userTurns.length,
    tool: toolTurns.length,
    toolCalls: rawBlocks(main, "tool_use").length,
    toolResults: rawBlocks(main, "tool_result").length,
    reasoning: rawBlocks(main, "thinking").length,
    compactions: lines.filter((l) => l.type === "system" && l.subtype === "compact_boundary").length,
    branches: rawBranchPoints(lines),
  };
}

/**
 * Branch points among the kept lines, following `parentUuid` (a compaction boundary: its logical
 * parent) through every line the importer leaves out.
 */
function rawBranchPoints(lines: Raw[]): number {
  const byId = new Map(lines.filter((l) => typeof l.uuid === "string").map((l) => [l.uuid as string, l]));
  const kept = (l: Raw) =>
    (isConversation(l) && l.isSidechain !== true && l.isCompactSummary !== true) ||
    (l.type === "system" && l.subtype === "compact_boundary");
  const parentOf = (l: Raw): string | null => {
    let p = (l.type === "system" && l.logicalParentUuid ? l.logicalParentUuid : l.parentUuid) as string | null | undefined;
    while (p) {
      const line = byId.get(p);
      if (!line) return null;
      if (kept(line)) return p;
      p = (line.type === "system" && line.logicalParentUuid ? line.logicalParentUuid : line.parentUuid) as
        | string
        | null
        | undefined;
    }
    return null;
  };
  return branchPoints(lines.filter(kept).map((l) => ({ id: l.uuid as string, parentId: parentOf(l) })));
}

function convert(c: (typeof CASES)[number]) {
  return convertClaudeCodeSession(file(c.main), c.agents.map(file));
}

describe("Claude Code import", () => {
  for (const c of CASES) {
    it(`${basename(c.main)}: every message, tool call and result, branch and sub-agent`, () => {
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
        branches: branchPoints(main.entries),
      }).toEqual(want);
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
    expect(subs.reduce((n, s) => n + s.entries.length, 0)).toBe(side.length);
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
    expect(countRole(sub, "assistant")).toBe([...relayed.values()].filter((m) => m.type === "assistant").length);
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

  it("a rewind (a second child of an earlier line) stays a branch, and the leaf is the last line", () => {
    const at = (s: number) => `2026-03-01T00:00:0${s}.000Z`;
    const line = (uuid: string, parentUuid: string | null, type: "user" | "assistant", text: string, s: number) =>
      JSON.stringify({
        uuid,
        parentUuid,
        type,
        sessionId: "sess-1",
        timestamp: at(s),
        cwd: "/w",
        message:
          type === "user"
            ? { role: "user", content: text }
            : { role: "assistant", id: `m${s}`, content: [{ type: "text", text }] },
      });
    const text = [
      line("u1", null, "user", "hi", 1),
      line("a1", "u1", "assistant", "hello", 2),
      line("u2", "a1", "user", "do x", 3),
      line("a2", "u2", "assistant", "did x", 4),
      line("u3", "a1", "user", "do y instead", 5),
      line("a3", "u3", "assistant", "did y", 6),
    ].join("\n");
    const [s] = convertClaudeCodeSession({ name: "sess-1.jsonl", text }).sessions;
    expect(branchPoints(s?.entries ?? [])).toBe(1);
    expect(s?.session.leafEntryId).toBe("a3");
  });

  it("refuses a file with no conversation line", () => {
    expect(() => convertClaudeCodeSession({ name: "x.jsonl", text: '{"type":"summary","summary":"s"}\n' })).toThrow(
      /x\.jsonl is not a Claude Code transcript/,
    );
  });
});
