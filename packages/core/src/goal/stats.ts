import { ArborError } from "../errors.js";
import type { Goal, GoalStats, GoalTree } from "./goal-tree.js";
import { ancestorIds } from "./tree-walk.js";

/** What one message adds to its goal's stats. The loop sums a message's token usage into `tokens`. */
export interface MessageStats {
  tokens?: number;
  cost?: number;
  /** Tools the message called, in order (an assistant message), or the tool it answers (a tool message). */
  toolNames?: readonly string[];
}

/** A finished sub-trace's totals, as kept in the calling goal's `subTraceMetadata[…].stats`. */
export interface SubTraceTotals {
  messageCount: number;
  totalTokens: number;
  totalCost: number;
}

export interface StatsUpdate {
  tree: GoalTree;
  /** Ids whose stats changed: the goal first, then its ancestors up to the top level. */
  affectedGoals: string[];
}

const ARROW = " → ";
const TIMES = " × ";
const ELLIPSIS = "…";
/** Past this many segments only the latest are kept: the preview lives in every persisted tree. */
export const MAX_PREVIEW_SEGMENTS = 10;

interface Segment {
  name: string;
  count: number;
}

/** `["glob", "read", "read"]` → `glob → read × 2`: consecutive calls of one tool collapse into a count. */
export function toolPreview(names: readonly string[]): string {
  return renderSegments(appendSegments([], names), false);
}

/**
 * Adds one message to `goalId`'s own stats and to the cumulative stats of the goal and each
 * ancestor. A message written before any goal existed (`goalId` null or undefined) changes nothing.
 */
export function recordMessage(tree: GoalTree, goalId: string | null | undefined, message: MessageStats): StatsUpdate {
  if (goalId === null || goalId === undefined) return { tree, affectedGoals: [] };
  const tokens = message.tokens ?? 0;
  const cost = message.cost ?? 0;
  checkAmount("tokens", tokens, true);
  checkAmount("cost", cost, false);
  const names = message.toolNames ?? [];
  const add = (stats: GoalStats) => addToStats(stats, 1, tokens, cost, names);
  return updateChain(tree, goalId, (goal, isTarget) =>
    isTarget
      ? { ...goal, selfStats: add(goal.selfStats), cumulativeStats: add(goal.cumulativeStats) }
      : { ...goal, cumulativeStats: add(goal.cumulativeStats) },
  );
}

/**
 * Rolls a sub-trace's totals into the cumulative stats of the goal that started it (and its
 * ancestors). Not into `selfStats`: those messages live in the sub-trace, not in this trace, and
 * their tool calls stay out of the preview because parallel branches have no single order.
 */
export function addSubTraceStats(tree: GoalTree, goalId: string, totals: SubTraceTotals): StatsUpdate {
  checkAmount("messageCount", totals.messageCount, true);
  checkAmount("totalTokens", totals.totalTokens, true);
  checkAmount("totalCost", totals.totalCost, false);
  return updateChain(tree, goalId, (goal) => ({
    ...goal,
    cumulativeStats: addToStats(goal.cumulativeStats, totals.messageCount, totals.totalTokens, totals.totalCost, []),
  }));
}

function updateChain(tree: GoalTree, goalId: string, update: (goal: Goal, isTarget: boolean) => Goal): StatsUpdate {
  if (!tree.goals.some((goal) => goal.id === goalId)) {
    throw new ArborError("invalid_input", `Goal id ${goalId} is not in the goal tree, so its stats cannot be updated.`, {
      goalId,
    });
  }
  const chain = [goalId, ...ancestorIds(tree.goals, goalId)];
  const inChain = new Set(chain);
  const goals = tree.goals.map((goal) => (inChain.has(goal.id) ? update(goal, goal.id === goalId) : goal));
  return { tree: { ...tree, goals }, affectedGoals: chain };
}

function addToStats(stats: GoalStats, messages: number, tokens: number, cost: number, names: readonly string[]): GoalStats {
  const next: GoalStats = {
    ...stats,
    messageCount: stats.messageCount + messages,
    totalTokens: stats.totalTokens + tokens,
    // Rounded so sums of prices like 0.1 + 0.2 do not persist as 0.30000000000000004.
    totalCost: Math.round((stats.totalCost + cost) * 1e10) / 1e10,
  };
  if (names.length > 0) {
    const { segments, truncated } = parsePreview(stats.preview);
    const merged = appendSegments(segments, names);
    next.preview = renderSegments(merged.slice(-MAX_PREVIEW_SEGMENTS), truncated || merged.length > MAX_PREVIEW_SEGMENTS);
  }
  return next;
}

/** The preview is the only record of the tool sequence, so it is parsed back to be extended. */
function parsePreview(preview: string | undefined): { segments: Segment[]; truncated: boolean } {
  if (!preview) return { segments: [], truncated: false };
  const parts = preview.split(ARROW);
  const truncated = parts[0] === ELLIPSIS;
  const segments = (truncated ? parts.slice(1) : parts).map((part) => {
    const at = part.lastIndexOf(TIMES);
    if (at === -1) return { name: part, count: 1 };
    const count = Number(part.slice(at + TIMES.length));
    return Number.isInteger(count) && count > 0 ? { name: part.slice(0, at), count } : { name: part, count: 1 };
  });
  return { segments, truncated };
}

function appendSegments(segments: readonly Segment[], names: readonly string[]): Segment[] {
  const out = segments.map((segment) => ({ ...segment }));
  for (const name of names) {
    const last = out[out.length - 1];
    if (last && last.name === name) last.count += 1;
    else out.push({ name, count: 1 });
  }
  return out;
}

function renderSegments(segments: readonly Segment[], truncated: boolean): string {
  const parts = segments.map((s) => (s.count > 1 ? `${s.name}${TIMES}${s.count}` : s.name));
  return (truncated ? [ELLIPSIS, ...parts] : parts).join(ARROW);
}

function checkAmount(field: string, value: number, integer: boolean): void {
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new ArborError(
      "invalid_input",
      `Goal stats: ${field} must be a non-negative ${integer ? "integer" : "number"}, got ${value}.`,
      { field, value },
    );
  }
}
