import type { Message } from "../model/message.js";
import type { ContextState } from "../session/context.js";

/** The recent tail kept verbatim through a compaction: a quarter of the prompt room, at most this many tokens. */
export const KEEP_RECENT_MAX = 20_000;
export const KEEP_RECENT_SHARE = 0.25;

export function keepRecentBudget(usable: number): number {
  return Math.max(0, Math.min(KEEP_RECENT_MAX, Math.floor(usable * KEEP_RECENT_SHARE)));
}

/** Where a compaction cuts the context: `[0, keepFrom)` is summarized, `[keepFrom, length)` kept as is. */
export interface CutSelection {
  /** First item kept verbatim; the context length when nothing is kept. */
  keepFrom: number;
  /** Its entry (the compaction entry's `firstKeptEntryId`), null when nothing is kept. */
  firstKeptEntryId: string | null;
  /**
   * Start of the turn the cut splits: `[turnStart, keepFrom)` (the turn's request and first steps)
   * gets its own short summary so the kept steps make sense. Equal to `keepFrom` when no turn is split.
   */
  turnStart: number;
  /** Estimated tokens of the kept tail and of the summarized items. */
  keptTokens: number;
  summarizedTokens: number;
}

function toolCallIds(message: Message): string[] {
  if (message.role !== "assistant") return [];
  const ids: string[] = [];
  for (const part of message.content) if (part.type === "tool-call") ids.push(part.toolCallId);
  return ids;
}

/**
 * Chooses the cut for a compaction, pure: walking back from the leaf, keep whole items while they fit
 * in `budget` tokens, and cut only where no tool result is separated from its call (a kept tool
 * message needs its assistant message kept too). A previous summary is never kept verbatim: it is
 * updated. Returns undefined when everything since the last summary fits in `budget` (nothing needs
 * summarizing); with budget 0 everything is summarized.
 */
export function selectCut(state: ContextState, count: (message: Message) => number, budget: number): CutSelection | undefined {
  const first = state.items[0]?.compaction ? 1 : 0;
  let keepFrom = state.length;
  let keptTokens = 0;
  let tail = 0;
  let fitsAll = true;
  const open = new Set<string>();
  for (let i = state.length - 1; i >= first; i--) {
    const message = state.items[i]!.message;
    tail += count(message);
    if (tail > budget) {
      fitsAll = false;
      break;
    }
    if (message.role === "tool") {
      for (const part of message.content) open.add(part.toolCallId);
      continue;
    }
    for (const id of toolCallIds(message)) open.delete(id);
    if (open.size === 0 && i > first) {
      keepFrom = i;
      keptTokens = tail;
    }
  }
  // Everything since the last summary fits the tail: there is nothing that must be summarized.
  if (fitsAll || keepFrom <= first) return undefined;
  let summarizedTokens = 0;
  for (let i = 0; i < keepFrom; i++) summarizedTokens += count(state.items[i]!.message);
  const entryId = keepFrom < state.length ? state.items[keepFrom]!.entryId : null;
  return {
    keepFrom,
    firstKeptEntryId: entryId,
    turnStart: splitTurnStart(state, keepFrom, first),
    keptTokens,
    summarizedTokens,
  };
}

/**
 * The user message that opened the turn the cut falls in, when the cut leaves part of that turn
 * behind. Synthetic user messages (a compaction's continuation, a branch summary) are not requests,
 * so they do not open turns.
 */
function splitTurnStart(state: ContextState, keepFrom: number, first: number): number {
  if (keepFrom >= state.length) return keepFrom;
  const opensTurn = (message: Message) => message.role === "user" && message.synthetic !== true;
  if (opensTurn(state.items[keepFrom]!.message)) return keepFrom;
  let sawAssistant = false;
  for (let i = keepFrom - 1; i >= first; i--) {
    const message = state.items[i]!.message;
    if (message.role === "assistant") sawAssistant = true;
    if (opensTurn(message)) return sawAssistant ? i : keepFrom;
  }
  return keepFrom;
}
