import type { CompactionEntry, CustomEntry, Entry } from "../model/entry.js";
import type { Message, ToolMessage, UserMessage } from "../model/message.js";
import type { TextPart } from "../model/parts.js";
import { type ContextItem, type ContextState, emptyContext, INTERRUPTED_OUTPUT, type OpenCall } from "./context-state.js";
import { DELETE_ENTRY_TYPE, DeleteDataSchema } from "./delete-entry.js";
import { applyGoalCompaction, GOAL_COMPACTION_ENTRY_TYPE, takeCarriedNote } from "./goal-collapse.js";
import { PRUNE_ENTRY_TYPE, PRUNED_OUTPUT, PruneDataSchema } from "./prune-entry.js";
import { purgeMarkOf } from "./purge-entry.js";

export {
  type CarriedNote,
  type ContextItem,
  type ContextState,
  EMPTY_CONTEXT,
  emptyContext,
  INTERRUPTED_OUTPUT,
  type OpenCall,
  PERMISSION_UNANSWERED_OUTPUT,
} from "./context-state.js";

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
  const { items, length } = push(state, { entryId: entry.id, message });
  return { ...state, items, length, leafId: entry.id };
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
    // A pruned result's attachments go with its text: they are the heaviest part of it.
    const { attachments: _dropped, ...rest } = part;
    return { ...rest, output: { type: "text" as const, value: PRUNED_OUTPUT }, pruned: true };
  });
  return changed ? { ...message, content } : undefined;
}

/**
 * A prune entry (the cheap first stage of context management) clears the listed tool results from this point of the path on. The
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
 * A delete entry (a user removing messages) takes the listed messages out of the context from this point of the path
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

/**
 * Providers refuse a conversation in which a tool call has no result, and a process that died while
 * a tool ran left exactly that. When the next turn starts (a user or assistant message), calls still
 * open get a result saying they were interrupted, placed right after them.
 */
function closeOpenCalls(state: ContextState, entry: Entry): ContextState {
  const open = state.openCalls;
  if (!open || open.length === 0) return state;
  const message: ToolMessage = {
    role: "tool",
    content: open.map((c) => ({
      type: "tool-result" as const,
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      output: { type: "error-text" as const, value: INTERRUPTED_OUTPUT },
    })),
    synthetic: true,
  };
  // The item carries the id of the entry that starts the next turn, so a compaction that keeps from
  // that entry drops it together with the call it answers.
  return { ...state, ...push(state, { entryId: entry.id, message }), openCalls: [] };
}

/**
 * Which calls are open after a message: an assistant's opens its calls, a tool result closes one.
 * The same list when the message changes nothing.
 */
function openCallsAfter(open: readonly OpenCall[] | undefined, message: Message): readonly OpenCall[] | undefined {
  if (message.role === "assistant") {
    const calls: OpenCall[] = [];
    for (const p of message.content) if (p.type === "tool-call") calls.push({ toolCallId: p.toolCallId, toolName: p.toolName });
    return calls.length > 0 || open?.length ? calls : open;
  }
  if (message.role === "tool" && open?.length) {
    // A tool message answers one call (the loop writes one per result): its parts are looked through, no set made.
    const answered = (id: string) => message.content.some((p) => p.toolCallId === id);
    return open.filter((c) => !answered(c.toolCallId));
  }
  return open;
}

function applyMessage(state: ContextState, entry: Entry & { type: "message" }): ContextState {
  const { message } = entry;
  const role = message.role;
  const before = role === "user" || role === "assistant" ? closeOpenCalls(state, entry) : state;
  const carried = before.carry ? takeCarriedNote(before, entry, message) : undefined;
  const base = carried ? { ...before, ...push(before, carried.note), carry: carried.carry } : before;
  // The message's item and the calls it opens or closes, in one new state (every message of a step comes here).
  const openCalls = openCallsAfter(base.openCalls, message);
  const { items, length } = push(base, { entryId: entry.id, message });
  const next: { -readonly [K in keyof ContextState]: ContextState[K] } = { ...base, items, length, leafId: entry.id };
  if (openCalls !== base.openCalls) next.openCalls = openCalls;
  return next;
}

/** Apply one entry that follows `state` on a path. Pure: `state` itself is never changed. */
export function applyEntry(state: ContextState, entry: Entry): ContextState {
  switch (entry.type) {
    case "message":
      // An erased message (a tombstone) says nothing: the model never sees it, on any branch.
      return purgeMarkOf(entry) ? { ...state, leafId: entry.id } : applyMessage(state, entry);
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
