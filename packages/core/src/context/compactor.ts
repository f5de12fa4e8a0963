import { ArborError } from "../errors.js";
import type { EntryInput } from "../model/entry.js";
import type { Message } from "../model/message.js";
import type { ContextState } from "../session/context.js";
import { selectCut } from "./cut.js";
import type { Summarizer } from "./summarizer.js";
import {
  CONTINUE_TEXT,
  type FileOps,
  FileOpsSchema,
  fileOps,
  joinSplitTurn,
  stripFileLists,
  summaryRequest,
  turnPrefixRequest,
  withFileLists,
} from "./summary-prompt.js";

/** `customType` of the synthetic continuation an automatic compaction appends. */
export const CONTINUE_ENTRY_TYPE = "arbor.continue";

export interface CompactionRequest {
  /** The context at the session's leaf. */
  state: ContextState;
  summarizer: Summarizer;
  /** Counts a message's tokens (exact: the tokenizer is loaded). */
  count: (message: Message) => number;
  /** Tokens of the recent tail kept verbatim. */
  keepTokens: number;
  /** The context's size before, recorded on the entry. */
  tokensBefore: number;
  mode: "auto" | "manual";
  focus?: string;
  /** Append the synthetic "continue" reminder after the compaction (automatic mode, mid-run). */
  continuation: boolean;
}

/**
 * A compaction ready to be written: the entries to append, in order, and what they do. The
 * compactor writes nothing itself, so a run appends them through its own journal.
 */
export interface CompactionPlan {
  entries: [Extract<EntryInput, { type: "compaction" }>, ...Extract<EntryInput, { type: "custom_message" }>[]];
  /** Messages the summary replaces, and messages kept verbatim. */
  summarized: number;
  kept: number;
  splitTurn: boolean;
}

function previousFiles(details: unknown): FileOps | undefined {
  const files = (details as { files?: unknown } | undefined)?.files;
  const parsed = FileOpsSchema.safeParse(files);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Summary compaction, the second stage after pruning: choose the cut and have the compaction agent
 * write (or update) the summary; returns the `compaction` entry and, in automatic mode, the
 * synthetic continuation to append. Throws when there is nothing to compact or the summarizer fails.
 */
export async function planCompaction(input: CompactionRequest): Promise<CompactionPlan> {
  const { state, summarizer } = input;
  const cut = selectCut(state, input.count, input.keepTokens);
  if (!cut) {
    throw new ArborError(
      "context_overflow",
      "Nothing to compact: the context holds only a summary and what must stay with it. Start a new session, or continue from an earlier entry.",
    );
  }
  const previous = state.items[0]?.compaction;
  const first = previous ? 1 : 0;
  const messages = (from: number, to: number) => {
    const out: Message[] = [];
    for (let i = from; i < to; i++) out.push(state.items[i]!.message);
    return out;
  };
  let history = messages(first, cut.turnStart);
  let turn = messages(cut.turnStart, cut.keepFrom);
  // A split turn gets its own short summary beside the history's; when the turn opens the summarized
  // part there is no other history, and its beginning is the history.
  if (history.length === 0) [history, turn] = [turn, []];
  const previousSummary = previous ? stripFileLists(previous.summary) : undefined;

  const [historySummary, turnSummary] = await Promise.all([
    history.length > 0
      ? summarizer.summarize(
          history,
          (conversation, prev) =>
            summaryRequest({
              conversation,
              ...(prev ? { previousSummary: prev } : {}),
              ...(input.focus ? { focus: input.focus } : {}),
            }),
          previousSummary,
        )
      : Promise.resolve(previousSummary),
    turn.length > 0
      ? summarizer.summarize(turn, (conversation, prev) =>
          prev
            ? `${turnPrefixRequest(conversation)}\n\nFold in this summary of its earlier part:\n${prev}`
            : turnPrefixRequest(conversation),
        )
      : Promise.resolve(undefined),
  ]);
  const text = turnSummary ? joinSplitTurn(historySummary ?? "", turnSummary) : (historySummary ?? "");
  const files = fileOps([...history, ...turn], previous ? previousFiles(previous.details) : undefined);

  const compaction: CompactionPlan["entries"][0] = {
    type: "compaction",
    summary: withFileLists(text, files),
    firstKeptEntryId: cut.firstKeptEntryId,
    tokensBefore: Math.max(0, Math.round(input.tokensBefore)),
    details: {
      mode: input.mode,
      model: summarizer.model,
      ...(input.focus ? { focus: input.focus } : {}),
      files,
      splitTurn: turn.length > 0,
      summarized: cut.keepFrom - first,
      keptTokens: cut.keptTokens,
      // What the summary cost is kept with it, so a run's spending can be read back from its entries.
      usage: summarizer.usage,
      cost: summarizer.cost,
      durationMs: summarizer.durationMs,
      ...(summarizer.costKnown ? {} : { costKnown: false }),
    },
  };
  // The kept tail ends the context after the summary; with nothing kept, the summary itself does.
  const last = cut.keepFrom < state.length ? state.items[state.length - 1]?.message : undefined;
  const continues = input.continuation && !(last?.role === "user" && !last.synthetic);
  return {
    entries: continues
      ? [
          compaction,
          {
            type: "custom_message",
            customType: CONTINUE_ENTRY_TYPE,
            content: CONTINUE_TEXT,
            display: true,
            includeInContext: true,
            details: { synthetic: true },
          },
        ]
      : [compaction],
    summarized: cut.keepFrom - first,
    kept: state.length - cut.keepFrom,
    splitTurn: turn.length > 0,
  };
}
