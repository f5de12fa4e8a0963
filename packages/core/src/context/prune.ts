import type { Message } from "../model/message.js";
import type { ContextState } from "../session/context.js";

/** Prune only when at least this many tokens would go: a smaller prune breaks the prompt cache for too little. */
export const PRUNE_MINIMUM = 20_000;
/** The most recent tool output, up to this many tokens, is never pruned (`PRUNE_PROTECT`). */
export const PRUNE_PROTECT = 40_000;
/** Tools whose results are never pruned: a skill's instructions stay in force. */
export const PRUNE_PROTECTED_TOOLS: readonly string[] = ["skill"];
/** User turns at the end of the context whose tool outputs are always kept. */
export const PRUNE_KEEP_TURNS = 2;

export interface PruneSelection {
  /** The tool calls whose results to clear, newest first. */
  toolCallIds: string[];
  /** Estimated tokens they hold. */
  tokens: number;
}

/**
 * The first, cheap stage of context management, pure. Walks back from the leaf: the last two user turns are skipped; the walk
 * stops at a compaction summary, and at a result already pruned (everything older was weighed by
 * that prune); completed tool outputs are counted, and those past the newest `PRUNE_PROTECT` tokens
 * are selected. Returns them only if more than `PRUNE_MINIMUM` tokens would go. Cost: the items after
 * the last summary or prune, each counted once by the memoizing `count`.
 */
export function selectPrune(state: ContextState, count: (message: Message) => number): PruneSelection | undefined {
  let turns = 0;
  let total = 0;
  let pruned = 0;
  const toolCallIds: string[] = [];
  walk: for (let i = state.length - 1; i >= 0; i--) {
    const item = state.items[i]!;
    if (item.compaction) break;
    const message = item.message;
    if (message.role === "user") turns++;
    if (turns < PRUNE_KEEP_TURNS || message.role !== "tool") continue;
    const ids: string[] = [];
    for (const part of message.content) {
      if (part.pruned === true) break walk;
      if (PRUNE_PROTECTED_TOOLS.includes(part.toolName)) continue;
      if (part.output.type === "error-text" || part.output.type === "error-json") continue;
      ids.push(part.toolCallId);
    }
    if (ids.length === 0) continue;
    const tokens = count(message);
    total += tokens;
    if (total > PRUNE_PROTECT) {
      pruned += tokens;
      toolCallIds.push(...ids);
    }
  }
  return pruned > PRUNE_MINIMUM ? { toolCallIds, tokens: pruned } : undefined;
}
