import { messageSummary } from "../events/message-summary.js";
import type { AffectedGoal } from "../events/watch-events.js";
import type { Entry, EntryInput } from "../model/entry.js";
import type { Message } from "../model/message.js";
import { passesToolMessageSchema } from "../model/tool-message-check.js";
import { applyEntry } from "../session/context.js";
import type { RunContext } from "./run-context.js";
import { type Charge, charge, tallyEntry } from "./tally.js";
import { spentTokens } from "./trace-spend.js";

/** The store's option for an entry checked here; one frozen value, not an object per write. */
const PREVALIDATED: { readonly prevalidated: true } = Object.freeze({ prevalidated: true });

/**
 * The one door through which a run writes its session. Every entry goes to the store first, then
 * advances the run's context and its tally, then is told to watchers, in that order: what the model
 * sees next and what a watcher hears never run ahead of what is stored, so a crash between two
 * writes leaves a journal from which the run can be taken up again. No other code of a run writes
 * entries.
 *
 * `record`, when given, is written in the same append as the message, all or none, and follows it
 * (store, then context, in the same order as two appends): for a record that would come right after
 * the message with nothing observable between them (a step's first tool-started record), so the
 * two cost one commit. A crash then leaves both or neither, which two appends also allowed.
 */
export async function appendMessage(ctx: RunContext, message: Message, record?: CustomRecord): Promise<Entry> {
  // Indexed loops over the extensions: they run twice a step, and an iterator is an object each time.
  const exts = ctx.extensions;
  let stored = message;
  for (let i = 0; i < exts.length; i++) {
    const ext = exts[i]!;
    if (ext.message) stored = ext.message(ctx, stored);
  }
  // An assistant message is assembled here from the parsed model stream, so the store need not check
  // it again; user text and tool results carry outside values and are checked: a tool result of the
  // loop's usual shape here, by plain tests that say what the schema would, others by the store.
  const checked = stored.role === "assistant" || passesToolMessageSchema(stored);
  let entry: Entry;
  let recorded: Entry | undefined;
  if (record === undefined) {
    entry = await ctx.store.appendMessage(ctx.sessionId, stored, checked ? PREVALIDATED : undefined);
  } else {
    // One append, all or none: a crash leaves both entries or neither, never the record alone.
    const both = await ctx.store.appendEntries(
      ctx.sessionId,
      [{ type: "message", message: stored }, customInput(record)],
      checked && named(record.customType) ? PREVALIDATED : undefined,
    );
    entry = both[0]!;
    recorded = both[1]!;
  }
  advance(ctx, entry);
  let affected: AffectedGoal[] = [];
  if (entry.type === "message") {
    for (let i = 0; i < exts.length; i++) {
      const told = exts[i]!.written?.(ctx, entry);
      if (told?.affectedGoals) affected = told.affectedGoals;
    }
  }
  const summary = messageSummary(entry);
  if (summary) ctx.publish({ event: "message_added", message: summary, affected_goals: affected });
  // The record follows the message as it would had it been appended after it.
  if (recorded) advance(ctx, recorded);
  return entry;
}

/** A `custom` entry's type name and data: the run's records that the model does not read as messages. */
export interface CustomRecord {
  readonly customType: string;
  readonly data: unknown;
}

function customInput(record: CustomRecord): Exclude<EntryInput, { type: "message" }> {
  return { type: "custom", customType: record.customType, data: record.data };
}

/** The schema asks of a custom entry only a type name (data may be anything): checked here, so the store need not. */
function named(customType: unknown): boolean {
  return typeof customType === "string" && customType.length > 0;
}

/** Writes an entry that is not a message (a record of the run's own): store, then context. */
export async function appendEntry(
  ctx: RunContext,
  input: Exclude<EntryInput, { type: "message" }>,
  opts?: { prevalidated: true },
): Promise<Entry> {
  const entry = await ctx.store.appendEntry(ctx.sessionId, input, opts);
  advance(ctx, entry);
  return entry;
}

/** The context and the tally both follow from the entry just stored. */
function advance(ctx: RunContext, entry: Entry): void {
  ctx.state = applyEntry(ctx.state, entry);
  const before = ctx.tally;
  ctx.tally = tallyEntry(before, entry);
  if (ctx.tally.usage !== before.usage || ctx.tally.cost !== before.cost) {
    const tokens = spentTokens(ctx.tally.usage) - spentTokens(before.usage);
    ctx.traceSpend.addTokens(tokens, ctx.tally.cost - before.cost);
  }
}

/**
 * Counts model calls that leave no entry in this session: a sub-run's (its entries are its own
 * session's), the replanner's, a summary that failed, a step's call aborted before it streamed (a
 * call that failed records its error, which counts the step).
 */
export function chargeRun(ctx: RunContext, spent: Charge): void {
  ctx.tally = charge(ctx.tally, spent);
  // A sub-run's spending reached the trace's count as it happened.
  if (!spent.subRun) ctx.traceSpend.add(spent.usage, spent.cost);
}

/** Writes a `custom` entry: the run's records that the model does not read as messages. */
export function appendCustom(ctx: RunContext, customType: string, data: unknown): Promise<Entry> {
  return appendEntry(ctx, customInput({ customType, data }), named(customType) ? PREVALIDATED : undefined);
}
