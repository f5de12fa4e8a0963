import { z } from "zod";
import type { CustomEntry, Entry } from "../model/entry.js";
import type { Message, UserMessage } from "../model/message.js";
import type { CarriedNote, ContextItem, ContextState } from "./context-state.js";

/** `customType` of the entry that collapses a closed goal's messages in the context, so finished work costs only its summary. */
export const GOAL_COMPACTION_ENTRY_TYPE = "arbor.goal_compaction";

/**
 * A goal was completed or abandoned: from here on down the path, the assistant and tool messages
 * written under it (or under its subgoals) are one summary in the context. Like a prune, it is
 * recorded on the active path, so a sibling branch keeps its own view and nothing stored changes.
 */
export const GoalCompactionDataSchema = z.looseObject({
  goalId: z.string(),
  /** The goal and its descendants: the `goalId`s whose messages collapse. */
  goalIds: z.array(z.string()).min(1),
  status: z.enum(["completed", "abandoned"]),
  /** What the model reads in place of the messages. */
  summary: z.string(),
  /** An abandoned goal's replacements: the first message of one of them carries the summary too. */
  replacedBy: z.array(z.string()).optional(),
});
export type GoalCompactionData = z.infer<typeof GoalCompactionDataSchema>;

function reminderMessage(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text: `<system-reminder>\n${text}\n</system-reminder>` }], synthetic: true };
}

function collapsible(item: ContextItem, ids: ReadonlySet<string>): boolean {
  const role = item.message.role;
  return (role === "assistant" || role === "tool") && item.message.goalId !== undefined && ids.has(item.message.goalId);
}

/**
 * Applies a goal compaction: the goal's assistant and tool messages leave the context and one
 * summary takes the place of the first. Whole steps go together (a step's tool results share its
 * goal), so no call is separated from its result. Copies, never edits, the shared items.
 */
export function applyGoalCompaction(state: ContextState, entry: CustomEntry): ContextState {
  const parsed = GoalCompactionDataSchema.safeParse(entry.data);
  if (!parsed.success) return { ...state, leafId: entry.id };
  const data = parsed.data;
  const ids = new Set(data.goalIds);
  const items: ContextItem[] = [];
  let placed = false;
  for (let i = 0; i < state.length; i++) {
    const item = state.items[i]!;
    if (!collapsible(item, ids)) {
      items.push(item);
      continue;
    }
    if (!placed) items.push({ entryId: entry.id, message: reminderMessage(data.summary) });
    placed = true;
  }
  const carry =
    data.status === "abandoned" && data.replacedBy
      ? [...(state.carry ?? []), { goalIds: data.replacedBy, text: data.summary }]
      : state.carry;
  const next: ContextState = { ...state, leafId: entry.id, ...(carry ? { carry } : {}) };
  if (!placed) return next;
  return { ...next, items, length: items.length, rewrittenAt: items.length };
}

/**
 * The note an abandoned goal left for the first message of its replacement, if `message` is that
 * message; the state without the note. Pure.
 */
export function takeCarriedNote(
  state: ContextState,
  entry: Entry,
  message: Message,
): { note: ContextItem; carry: readonly CarriedNote[] } | undefined {
  const goalId = message.goalId;
  if (!state.carry || goalId === undefined) return undefined;
  const index = state.carry.findIndex((c) => c.goalIds.includes(goalId));
  if (index < 0) return undefined;
  const found = state.carry[index]!;
  return {
    note: {
      entryId: entry.id,
      message: reminderMessage(`This goal replaces one that was given up. What was learned there:\n\n${found.text}`),
    },
    carry: state.carry.filter((_, i) => i !== index),
  };
}
