import { applyGoalCompaction, GOAL_COMPACTION_ENTRY_TYPE, takeCarriedNote } from "../context/goal-compaction.js";
import { PRUNE_ENTRY_TYPE, PRUNED_OUTPUT, PruneDataSchema } from "../context/prune-entry.js";
import type { CompactionEntry, CustomEntry, Entry } from "../model/entry.js";
import type { Message, ToolMessage, UserMessage } from "../model/message.js";
import type { TextPart } from "../model/parts.js";
import { type ContextItem, type ContextState, emptyContext } from "./context-state.js";
import { DELETE_ENTRY_TYPE, DeleteDataSchema } from "./delete-entry.js";

export { type CarriedNote, type ContextItem, type ContextState, EMPTY_CONTEXT, emptyContext } from "./context-state.js";

function reminder(text: string): TextPart {
  return { type: "text", text: `<system-reminder>\n${text}\n</system-reminder>` };
}

function syntheticUser(content: UserMessage["content"]): UserMessage {
  return { role: "user", content, synthetic: true };
}

function push(state: ContextState, item: ContextItem): { items: ContextItem[]; length: number } {
  const owned = state.items.length === state.length;
  const items = owned ? state.items : state.items.slice(0, state.length);
  items.push(item);
  return { items, length: items.length };
}

function withItem(state: ContextState, entry: Entry, message: Message): ContextState {
  return { ...state, ...push(state, { entryId: entry.id, message }), leafId: entry.id };
}

/**
 * Replace everything before `firstKeptEntryId` with the summary. If the kept entry is not in the
 * current context (it was already summarized), nothing that is in context is dropped: the summary
 * goes in front of all current items, so a later compaction can never lose what an earlier one kept.
 */
function compact(state: ContextState, entry: CompactionEntry): ContextState {
  let keepFrom = state.length;
  if (entry.firstKeptEntryId !== null) {
    keepFrom = 0;
    for (let i = state.length - 1; i >= 0; i--) {
      if (state.items[i]?.entryId === entry.firstKeptEntryId) {
        keepFrom = i;
        break;
      }
    }
  }
  const summary: ContextItem = {
    entryId: entry.id,
    message: syntheticUser([reminder(`The conversation before this point was compacted. Summary of it:\n\n${entry.summary}`)]),
    compaction: entry.details === undefined ? { summary: entry.summary } : { summary: entry.summary, details: entry.details },
  };
  const items = [summary, ...state.items.slice(keepFrom, state.length)];
  return { ...state, items, length: items.length, leafId: entry.id, rewrittenAt: items.length };
}

function clearResults(message: ToolMessage, ids: ReadonlySet<string>): ToolMessage | undefined {
  let changed = false;
  const content = message.content.map((part) => {
    if (!ids.has(part.toolCallId) || part.pruned === true) return part;
    changed = true;
    return { ...part, output: { type: "text" as const, value: PRUNED_OUTPUT }, pruned: true };
  });
  return changed ? { ...message, content } : undefined;
}

/**
 * A prune entry (SPEC 6 stage 1) clears the listed tool results from this point of the path on. The
 * items are copied rather than edited in place, because an older state (a sibling branch) may share
 * them. O(context length), like a compaction, and as rare.
 */
function prune(state: ContextState, entry: CustomEntry): ContextState {
  const data = PruneDataSchema.safeParse(entry.data);
  if (!data.success) return { ...state, leafId: entry.id };
  const ids = new Set(data.data.toolCallIds);
  let items: ContextItem[] | undefined;
  for (let i = 0; i < state.length; i++) {
    const item = state.items[i]!;
    if (item.message.role !== "tool") continue;
    const cleared = clearResults(item.message, ids);
    if (!cleared) continue;
    items ??= state.items.slice(0, state.length);
    items[i] = { ...item, message: cleared };
  }
  if (!items) return { ...state, leafId: entry.id };
  return { ...state, items, length: items.length, leafId: entry.id, rewrittenAt: items.length };
}

/**
 * A delete entry (seed 002) takes the listed messages out of the context from this point of the path
 * on. Copied like a prune, because a sibling branch may share the items. A message already replaced
 * by a compaction summary is not in the items, so its summary still tells of it.
 */
function deleteMessages(state: ContextState, entry: CustomEntry): ContextState {
  const data = DeleteDataSchema.safeParse(entry.data);
  if (!data.success) return { ...state, leafId: entry.id };
  const ids = new Set(data.data.entryIds);
  const items: ContextItem[] = [];
  for (let i = 0; i < state.length; i++) {
    const item = state.items[i]!;
    if (!ids.has(item.entryId)) items.push(item);
  }
  if (items.length === state.length) return { ...state, leafId: entry.id };
  return { ...state, items, length: items.length, leafId: entry.id, rewrittenAt: items.length };
}

/** Apply one entry that follows `state` on a path. Pure: `state` itself is never changed. */
export function applyEntry(state: ContextState, entry: Entry): ContextState {
  switch (entry.type) {
    case "message": {
      const carried = state.carry ? takeCarriedNote(state, entry, entry.message) : undefined;
      if (!carried) return withItem(state, entry, entry.message);
      const withNote = { ...state, ...push(state, carried.note), carry: carried.carry };
      return withItem(withNote, entry, entry.message);
    }
    case "compaction":
      return compact(state, entry);
    case "branch_summary":
      return withItem(
        state,
        entry,
        syntheticUser([reminder(`Work done on another branch before returning here:\n\n${entry.summary}`)]),
      );
    case "custom_message": {
      if (entry.includeInContext === false) return { ...state, leafId: entry.id };
      const parts = typeof entry.content === "string" ? [{ type: "text" as const, text: entry.content }] : entry.content;
      const content = parts.map((p) => (p.type === "text" ? reminder(p.text) : p));
      return withItem(state, entry, syntheticUser(content));
    }
    case "thinking_level_change":
      return { ...state, thinkingLevel: entry.thinkingLevel, leafId: entry.id };
    case "model_change":
      return { ...state, model: entry.model, leafId: entry.id };
    case "custom":
      if (entry.customType === PRUNE_ENTRY_TYPE) return prune(state, entry);
      if (entry.customType === DELETE_ENTRY_TYPE) return deleteMessages(state, entry);
      if (entry.customType === GOAL_COMPACTION_ENTRY_TYPE) return applyGoalCompaction(state, entry);
      return { ...state, leafId: entry.id };
    case "label":
    case "session_info":
    case "subagent_batch":
    case "subagent_result":
      return { ...state, leafId: entry.id };
    default: {
      const unreachable: never = entry;
      return unreachable;
    }
  }
}

/** Build the context for a whole path, root first. */
export function buildContext(path: readonly Entry[]): ContextState {
  let state = emptyContext();
  for (const entry of path) state = applyEntry(state, entry);
  return state;
}

/** The messages of a state, in order, for a model call. */
export function contextMessages(state: ContextState): Message[] {
  const out = new Array<Message>(state.length);
  for (let i = 0; i < state.length; i++) out[i] = (state.items[i] as ContextItem).message;
  return out;
}
