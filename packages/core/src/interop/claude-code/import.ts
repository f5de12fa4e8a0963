import { ArborError } from "../../errors.js";
import type { SessionExport } from "../../store/export-format.js";
import { SessionBuilder } from "../build.js";
import { importedSessionId, importedSubTraceId } from "../ids.js";
import { parseJsonLines } from "../jsonl.js";
import { isoTime } from "../time.js";
import { addSkip, type Conversion, type SkipCounts } from "../types.js";
import { ClaudeChain } from "./chain.js";
import { type ClaudeContext, userText } from "./messages.js";
import {
  type ClaudeLine,
  ClaudeProgressLineSchema,
  ClaudeSummaryLineSchema,
  type ClaudeUserLine,
  conversationLine,
} from "./schema.js";

export interface ClaudeFile {
  /** The file name (its sub-agent id is read from `agent-<id>.jsonl`). */
  name: string;
  text: string;
}

/** Lines that are bookkeeping for the CLI's screen and have nothing Arbor keeps. */
const DISPLAY_ONLY: Record<string, string> = {
  "file-history-snapshot": "file-history-snapshot line (undo data for edited files)",
  "queue-operation": "queue-operation line (prompt queue bookkeeping)",
  "pr-link": "pr-link line",
  "last-prompt": "last-prompt line",
};

interface SubAgent {
  key: string;
  agentId?: string;
  toolUseId?: string;
  lines: ClaudeLine[];
  /** Sub-agents recorded only as progress lines carry no parent links: they are chained in order. */
  linear: boolean;
}

/**
 * A Claude Code transcript and its sub-agent files as an Arbor session with sub-traces. Pure.
 * The tree follows `parentUuid`, so rewinds and forks stay branches; a compaction becomes a
 * compaction entry holding the summary the CLI wrote after it.
 */
export function convertClaudeCodeSession(main: ClaudeFile, agentFiles: ReadonlyArray<ClaudeFile> = []): Conversion {
  const skipped: SkipCounts = {};
  const ctx: ClaudeContext = { toolNames: new Map(), usageSeen: new Set(), skipped };
  const { lines, bad } = parseJsonLines(main.text);
  if (bad.length) addSkip(skipped, "line is not JSON", bad.length);
  const conv = lines.map((l) => conversationLine(l.value));
  const first = conv.find((c) => c !== undefined && c.isSidechain !== true) ?? conv.find((c) => c !== undefined);
  if (first === undefined) {
    throw new ArborError(
      "invalid_input",
      `${main.name} is not a Claude Code transcript: it has no user or assistant line with a uuid. Give a <session>.jsonl from ~/.claude/projects.`,
    );
  }
  const sourceId = first.sessionId ?? main.name.replace(/\.jsonl$/, "");
  const id = importedSessionId("claude-code", sourceId);
  const tasks = taskCalls(conv);
  const b = new SessionBuilder(
    {
      id,
      origin: { agent: "claude-code", sourceId, ...(first.version ? { version: first.version } : {}) },
      ...(first.cwd ? { cwd: first.cwd } : {}),
    },
    skipped,
    isoTime(first.timestamp) ?? new Date(0).toISOString(),
  );
  const summaries = compactSummaries(conv);
  const subAgents = new Map<string, SubAgent>();
  /** Sidechain line uuid → the key of the sub-agent run it belongs to. */
  const chainOf = new Map<string, string>();
  const agentOfTool = new Map<string, string>();
  let title: string | undefined;
  let leaf: string | undefined;
  const chain = new ClaudeChain(b, ctx, summaries);
  for (const [i, { value }] of lines.entries()) {
    const c = conv[i];
    if (c?.isSidechain) {
      sidechainLine(subAgents, chainOf, c);
      continue;
    }
    if (c) {
      const last = chain.add(c);
      if (last) leaf = last;
      if (c.type === "user" && c.toolUseResult && typeof c.toolUseResult === "object") {
        const agentId = (c.toolUseResult as { agentId?: unknown }).agentId;
        const r = Array.isArray(c.message.content) ? c.message.content.find((x) => x.type === "tool_result") : undefined;
        if (typeof agentId === "string" && r) agentOfTool.set(agentId, String((r as { tool_use_id?: unknown }).tool_use_id));
      }
      continue;
    }
    const type = (value as { type?: unknown })?.type;
    const uuid = (value as { uuid?: unknown })?.uuid;
    const parent = (value as { parentUuid?: unknown })?.parentUuid;
    if (typeof uuid === "string") b.bridge(uuid, typeof parent === "string" ? parent : null);
    const summary = ClaudeSummaryLineSchema.safeParse(value);
    if (summary.success) {
      title ??= summary.data.summary;
      continue;
    }
    const progress = ClaudeProgressLineSchema.safeParse(value);
    if (progress.success) {
      if (progress.data.data.type === "agent_progress") progressLine(subAgents, progress.data);
      else addSkip(skipped, `progress line "${progress.data.data.type}" (live output shown while a tool ran)`);
      continue;
    }
    if (type === "user" || type === "assistant" || type === "system") addSkip(skipped, `${type} line Arbor cannot read`);
    else
      addSkip(skipped, typeof type === "string" ? (DISPLAY_ONLY[type] ?? `unknown line type "${type}"`) : "line without a type");
  }
  for (const file of agentFiles) agentFile(subAgents, file, skipped);
  const parent = b.finish(leaf ?? null);
  if (title ?? firstUserText(conv)) parent.session.title = (title ?? firstUserText(conv) ?? "").slice(0, 500);
  const subs = subTraces(parent, [...subAgents.values()], { tasks, agentOfTool, ctx });
  return { sessions: [parent, ...subs], skipped };
}

/** Compaction boundary uuid → the user line holding the summary written right after it. */
function compactSummaries(conv: ReadonlyArray<ClaudeLine | undefined>): Map<string, ClaudeUserLine> {
  const out = new Map<string, ClaudeUserLine>();
  for (const c of conv) if (c?.type === "user" && c.isCompactSummary && c.parentUuid) out.set(c.parentUuid, c);
  return out;
}

interface TaskCall {
  prompt?: string;
  subagentType?: string;
}

/** Every Task tool call of the main conversation: the sub-agents' launch points. */
function taskCalls(conv: ReadonlyArray<ClaudeLine | undefined>): Map<string, TaskCall> {
  const out = new Map<string, TaskCall>();
  for (const c of conv) {
    if (c?.type !== "assistant" || c.isSidechain) continue;
    for (const raw of c.message.content) {
      const blk = raw as { type: string; id?: unknown; name?: unknown; input?: { prompt?: unknown; subagent_type?: unknown } };
      if (blk.type !== "tool_use" || (blk.name !== "Task" && blk.name !== "Agent")) continue;
      const prompt = blk.input?.prompt;
      const type = blk.input?.subagent_type;
      out.set(String(blk.id), {
        ...(typeof prompt === "string" ? { prompt } : {}),
        ...(typeof type === "string" ? { subagentType: type } : {}),
      });
    }
  }
  return out;
}

/** Inline sidechains (1.0.x): each chain starting at a null parent is one sub-agent run. */
function sidechainLine(subs: Map<string, SubAgent>, chainOf: Map<string, string>, c: ClaudeLine): void {
  const key = (c.parentUuid ? chainOf.get(c.parentUuid) : undefined) ?? `chain:${c.uuid}`;
  chainOf.set(c.uuid, key);
  const sub = subs.get(key) ?? { key, lines: [], linear: false };
  sub.lines.push(c);
  subs.set(key, sub);
}

/** A sub-agent's message relayed into the parent transcript as it ran (2.1.x). */
function progressLine(subs: Map<string, SubAgent>, p: ReturnType<typeof ClaudeProgressLineSchema.parse>): void {
  const agentId = p.data.agentId;
  const m = p.data.message;
  if (!agentId || !m?.uuid) return;
  const key = `agent:${agentId}`;
  const sub = subs.get(key) ?? {
    key,
    agentId,
    lines: [],
    linear: true,
    ...(p.parentToolUseID ? { toolUseId: p.parentToolUseID } : {}),
  };
  if (!sub.linear || sub.lines.some((l) => l.uuid === m.uuid)) return;
  const line = conversationLine({ type: m.type, uuid: m.uuid, timestamp: m.timestamp, message: m.message, isSidechain: true });
  if (line) sub.lines.push(line);
  subs.set(key, sub);
}

/** A sub-agent file (`agent-<id>.jsonl`): it replaces what progress lines relayed of the same agent. */
function agentFile(subs: Map<string, SubAgent>, file: ClaudeFile, skipped: SkipCounts): void {
  const { lines, bad } = parseJsonLines(file.text);
  if (bad.length) addSkip(skipped, "line is not JSON", bad.length);
  const conv: ClaudeLine[] = [];
  for (const { value } of lines) {
    const c = conversationLine(value);
    if (c) conv.push(c);
    else {
      const t = (value as { type?: unknown; data?: { type?: unknown } })?.type;
      addSkip(
        skipped,
        t === "progress" ? "progress line in a sub-agent file" : `unknown line type "${String(t)}" in a sub-agent file`,
      );
    }
  }
  const agentId = conv.find((c) => c.agentId)?.agentId ?? /agent-([^.]+)\.jsonl$/.exec(file.name)?.[1] ?? file.name;
  const key = `agent:${agentId}`;
  const previous = subs.get(key);
  subs.set(key, { key, agentId, lines: conv, linear: false, ...(previous?.toolUseId ? { toolUseId: previous.toolUseId } : {}) });
}

interface LinkContext {
  tasks: Map<string, TaskCall>;
  agentOfTool: Map<string, string>;
  ctx: ClaudeContext;
}

function subTraces(parent: SessionExport, subs: SubAgent[], link: LinkContext): SessionExport[] {
  const started = subs
    .filter((s) => s.lines.length > 0)
    .map((s) => ({ s, at: isoTime(s.lines[0]?.timestamp) ?? parent.session.createdAt }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const usedTasks = new Set<string>();
  const out: SessionExport[] = [];
  for (const [seq, { s, at }] of started.entries()) {
    const firstUser = s.lines.find((l): l is ClaudeUserLine => l.type === "user");
    const task = firstUser ? userText(firstUser) : "";
    const toolUseId =
      s.toolUseId ??
      (s.agentId ? link.agentOfTool.get(s.agentId) : undefined) ??
      [...link.tasks.entries()].find(([tid, t]) => !usedTasks.has(tid) && t.prompt !== undefined && t.prompt === task)?.[0];
    if (toolUseId) usedTasks.add(toolUseId);
    const call = toolUseId ? link.tasks.get(toolUseId) : undefined;
    const id = importedSubTraceId(parent.session.id, at, seq + 1);
    const b = new SessionBuilder(
      {
        id,
        parentSessionId: parent.session.id,
        origin: { agent: "claude-code", sourceId: s.agentId ?? s.key, ...(toolUseId ? { toolCallId: toolUseId } : {}) },
        agentType: call?.subagentType ?? "sub-agent",
        task: call?.prompt ?? task,
        ...(parent.session.cwd ? { cwd: parent.session.cwd } : {}),
      },
      link.ctx.skipped,
      at,
    );
    let leaf: string | undefined;
    let previous: string | null = null;
    const chain = new ClaudeChain(b, link.ctx);
    for (const line of s.lines) {
      const l = s.linear ? { ...line, parentUuid: previous } : line;
      const last = chain.add(l);
      if (last) {
        leaf = last;
        previous = line.uuid;
      }
    }
    out.push(b.finish(leaf ?? null));
    if (toolUseId) markCall(parent, toolUseId, id);
  }
  return out;
}

/** Names the sub-trace on the tool call that launched it, so the parent's call leads to it. */
function markCall(parent: SessionExport, toolCallId: string, subSessionId: string): void {
  for (const e of parent.entries) {
    if (e.type !== "message" || e.message.role !== "assistant") continue;
    for (const p of e.message.content)
      if (p.type === "tool-call" && p.toolCallId === toolCallId) (p as Record<string, unknown>).subSessionId = subSessionId;
  }
}

function firstUserText(conv: ReadonlyArray<ClaudeLine | undefined>): string | undefined {
  for (const c of conv) {
    if (c?.type !== "user" || c.isSidechain || c.isMeta || c.isCompactSummary) continue;
    const text = userText(c).trim();
    if (text && !text.startsWith("<")) return text.split("\n")[0];
  }
  return undefined;
}
