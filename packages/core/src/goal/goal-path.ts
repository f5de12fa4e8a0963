import type { Entry } from "../model/entry.js";
import type { Message } from "../model/message.js";
import { emptyGoalStats, type GoalTree, GoalTreeSchema } from "./goal-tree.js";
import { addSubTraceStats, type MessageStats, recordMessage } from "./stats.js";
import { findGoal } from "./tree-walk.js";

/**
 * A custom entry that records the goal tree when it changed other than through a tool result (a
 * replay, a plan step). Tool results carry theirs in the tool part's `metadata.goalTree`.
 */
export const GOAL_TREE_ENTRY_TYPE = "arbor.goal_tree";

/** What one stored message adds to its goal's stats: its tokens, cost and the tools it names. Pure. */
export function messageStats(message: Message): MessageStats {
  const tokens = message.tokens ? message.tokens.input + message.tokens.output : 0;
  const toolNames: string[] = [];
  if (message.role === "assistant") {
    for (const part of message.content) if (part.type === "tool-call") toolNames.push(part.toolName);
  }
  // A tool message answers calls the assistant message already counted in the preview.
  return { tokens, cost: message.cost ?? 0, toolNames };
}

/** The tree an entry records, if it records one (parsed, so a damaged record is ignored). Pure. */
export function recordedGoalTree(entry: Entry): GoalTree | undefined {
  let raw: unknown;
  if (entry.type === "custom" && entry.customType === GOAL_TREE_ENTRY_TYPE) {
    raw = (entry.data as { tree?: unknown } | undefined)?.tree;
  } else if (entry.type === "message" && entry.message.role === "tool") {
    for (const part of entry.message.content) {
      const tree = (part.metadata as { goalTree?: unknown } | undefined)?.goalTree;
      if (tree !== undefined) raw = tree;
    }
  }
  if (raw === undefined) return undefined;
  const parsed = GoalTreeSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The goal tree at the end of a path: the latest tree recorded on it, with stats counted
 * again from every message on the path. Recomputing makes the stats exact whatever order a step's
 * concurrent tool results were written in, and it is one pass, like opening the session. Undefined
 * when nothing on the path recorded a plan. Pure.
 */
export function goalTreeOnPath(path: readonly Entry[]): GoalTree | undefined {
  let structure: GoalTree | undefined;
  for (let i = path.length - 1; i >= 0 && !structure; i--) structure = recordedGoalTree(path[i]!);
  if (!structure) return undefined;
  let tree: GoalTree = {
    ...structure,
    goals: structure.goals.map((g) => ({ ...g, selfStats: emptyGoalStats(), cumulativeStats: emptyGoalStats() })),
  };
  for (const goal of structure.goals) {
    for (const meta of Object.values(goal.subTraceMetadata ?? {})) tree = addSubTraceStats(tree, goal.id, meta.stats).tree;
  }
  for (const entry of path) {
    if (entry.type !== "message") continue;
    const goalId = entry.message.goalId;
    if (goalId === undefined || !findGoal(tree, goalId)) continue;
    tree = recordMessage(tree, goalId, messageStats(entry.message)).tree;
  }
  return tree;
}
