import { z } from "zod";
import { addUsage, ZERO_USAGE } from "../llm/usage.js";
import type { Entry } from "../model/entry.js";
import type { TokenUsage } from "../model/message.js";
import { RUN_ERROR_ENTRY_TYPE } from "./run-error.js";

/**
 * What a run has done, spent and said so far, as its result reports it. It is folded from the
 * entries the run writes (each step's assistant message carries its duration, tokens and cost, each
 * compaction its summarizer's), so it cannot drift from the journal; only model calls that leave no
 * entry in this session (a sub-run's, the replanner's, a failed summary, a call aborted before it
 * streamed) are charged by hand.
 */
export interface RunTally {
  /** Model calls made: each records itself as an assistant message with its duration, or as a run error. */
  readonly steps: number;
  readonly usage: TokenUsage;
  readonly cost: number;
  /** False once a model call was made with a model the catalog has no price for: `cost` then counts only the priced calls. */
  readonly costKnown: boolean;
  /** Compactions made during this run. */
  readonly compactions: number;
  /** The text of the last assistant message that ended without an error: the run's answer. */
  readonly lastText: string;
}

export const EMPTY_TALLY: RunTally = Object.freeze({
  steps: 0,
  usage: ZERO_USAGE,
  cost: 0,
  costKnown: true,
  compactions: 0,
  lastText: "",
});

/** Spending of model calls whose record is not an entry of this run. */
export interface Charge {
  usage?: TokenUsage | undefined;
  cost: number;
  /** False when a call was made with a model the catalog has no price for. */
  costKnown: boolean;
  /** Model calls it stands for, when they count as the run's steps (a sub-run's, the replanner's). */
  steps?: number;
  /** A sub-run's total, which its own calls already added to the trace's spend. */
  subRun?: boolean;
}

/** What a compaction entry says its summarizer spent; written by the run's context guard. */
const CompactionSpendSchema = z.looseObject({
  usage: z
    .object({
      input: z.number(),
      output: z.number(),
      reasoning: z.number(),
      cacheRead: z.number(),
      cacheWrite: z.number(),
    })
    .optional(),
  cost: z.number().optional(),
  costKnown: z.boolean().optional(),
});

export function charge(tally: RunTally, spent: Charge): RunTally {
  return {
    ...tally,
    steps: tally.steps + (spent.steps ?? 0),
    usage: spent.usage ? addUsage(tally.usage, spent.usage) : tally.usage,
    cost: tally.cost + spent.cost,
    costKnown: tally.costKnown && spent.costKnown,
  };
}

/** The tally after the run wrote `entry`. Pure. */
export function tallyEntry(tally: RunTally, entry: Entry): RunTally {
  if (entry.type === "compaction") {
    const spent = CompactionSpendSchema.safeParse(entry.details ?? {});
    const next = { ...tally, compactions: tally.compactions + 1 };
    if (!spent.success) return next;
    return charge(next, {
      usage: spent.data.usage,
      cost: spent.data.cost ?? 0,
      costKnown: spent.data.costKnown !== false,
    });
  }
  if (entry.type === "custom" && entry.customType === RUN_ERROR_ENTRY_TYPE) return { ...tally, steps: tally.steps + 1 };
  if (entry.type !== "message" || entry.message.role !== "assistant") return tally;
  const message = entry.message;
  // A step's message records how long its call took; a replayed copy or a plan's closing report made no call.
  const called = message.durationMs !== undefined && message.replayOf === undefined;
  const tokens = message.tokens;
  // A replayed call is a copy of an earlier message, not the run's answer.
  const answers = message.error === undefined && message.replayOf === undefined;
  if (!called && !tokens && !answers) return tally;
  let lastText = tally.lastText;
  if (answers) {
    lastText = "";
    for (const part of message.content) if (part.type === "text") lastText += part.text;
  }
  // One new tally a step, as `charge` would make it for the tokens (an unpriced model's message has tokens but no cost).
  return {
    ...tally,
    steps: called ? tally.steps + 1 : tally.steps,
    usage: tokens ? addUsage(tally.usage, tokens) : tally.usage,
    cost: tokens ? tally.cost + (message.cost ?? 0) : tally.cost,
    costKnown: tokens ? tally.costKnown && message.cost !== undefined : tally.costKnown,
    lastText,
  };
}
