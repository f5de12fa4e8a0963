import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { convertClaudeCodeSession } from "../../src/interop/claude-code/import.js";
import { convertCodexSession } from "../../src/interop/codex/import.js";
import { convertOpenCodeRows } from "../../src/interop/opencode/import.js";
import { convertPiSession } from "../../src/interop/pi/import.js";
import type { Conversion } from "../../src/interop/types.js";
import type { Entry } from "../../src/model/entry.js";
import type { Part } from "../../src/model/parts.js";
import type { SessionExport } from "../../src/store/export-format.js";

const ROOT = fileURLToPath(new URL("../fixtures/sessions/", import.meta.url));

export function fixturePath(rel: string): string {
  return `${ROOT}${rel}`;
}

export function fixture(rel: string): string {
  return readFileSync(fixturePath(rel), "utf8");
}

/** The JSON objects of a JSONL fixture, read here independently of the importer's own reader. */
export function rawLines(rel: string): Array<Record<string, unknown>> {
  return fixture(rel)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function parts(s: SessionExport): Part[] {
  return s.entries.flatMap((e) => (e.type === "message" ? (e.message.content as Part[]) : []));
}

export function countParts(s: SessionExport, type: Part["type"]): number {
  return parts(s).filter((p) => p.type === type).length;
}

export function countRole(s: SessionExport, role: string): number {
  return s.entries.filter((e) => e.type === "message" && e.message.role === role).length;
}

export function countType(s: SessionExport, type: Entry["type"]): number {
  return s.entries.filter((e) => e.type === type).length;
}

/** Entries with more than one child: the branch points of the tree. */
export function branchPoints(entries: ReadonlyArray<{ id: string; parentId: string | null }>): number {
  const kids = new Map<string, number>();
  for (const e of entries) if (e.parentId !== null) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
  return [...kids.values()].filter((n) => n > 1).length;
}

/** Blocks of `type` inside the `message.content` arrays of the given raw lines. */
export function rawBlocks(lines: ReadonlyArray<Record<string, unknown>>, type: string): Array<Record<string, unknown>> {
  return lines.flatMap((l) => {
    const content = (l.message as { content?: unknown } | undefined)?.content;
    return Array.isArray(content) ? (content as Array<Record<string, unknown>>).filter((b) => b?.type === type) : [];
  });
}

/** A Claude Code session fixture and its sub-agents' files, converted. */
export const claudeFixture = (main: string, agents: string[] = []) =>
  convertClaudeCodeSession(
    { name: basename(main), text: fixture(main) },
    agents.map((a) => ({ name: basename(a), text: fixture(a) })),
  );

/** Every session fixture, converted: what the store, ATIF and inspector tests import. */
export function allConversions(): Conversion[] {
  const dump = rawLines("opencode/question.rows.jsonl");
  return [
    convertPiSession(fixture("pi/v1-linear-large-session.jsonl")),
    convertPiSession(fixture("pi/v3-real-world-trimmed.jsonl")),
    convertPiSession(fixture("pi/v3-smoke-redacted.jsonl")),
    claudeFixture("claude-code/v1.0.108-inline-sidechain.jsonl"),
    claudeFixture("claude-code/v2.0.64-warmup-agents/4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl", [
      "claude-code/v2.0.64-warmup-agents/agent-36541525.jsonl",
      "claude-code/v2.0.64-warmup-agents/agent-50243ee8.jsonl",
    ]),
    claudeFixture("claude-code/v2.0.69-thinking.jsonl"),
    claudeFixture("claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl", [
      "claude-code/v2.1.7-subagents/e9fb405b-169f-40eb-9396-7e75076f045d/subagents/agent-a485154.jsonl",
    ]),
    claudeFixture("claude-code/v2.1.19-agent-progress.jsonl"),
    claudeFixture("claude-code/v2.1.36-compaction.jsonl"),
    convertCodexSession(fixture("codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")),
    ...convertOpenCodeRows({
      sessions: dump.filter((l) => l.table === "session_v2").map((l) => l.row),
      messages: dump.filter((l) => l.table === "session_message").map((l) => l.row),
    }),
  ];
}
