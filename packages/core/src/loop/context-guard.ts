import { planCompaction } from "../context/compactor.js";
import { keepRecentBudget, selectCut } from "../context/cut.js";
import { usableTokens } from "../context/overflow.js";
import { selectPrune } from "../context/prune.js";
import { Summarizer } from "../context/summarizer.js";
import { REPLY_PRIMING_TOKENS } from "../context/tokens.js";
import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import { PRUNE_ENTRY_TYPE } from "../session/prune-entry.js";
import { appendCustom, appendEntry, chargeRun } from "./journal.js";
import type { RunContext } from "./run-context.js";

/** Tokens of what every prompt carries besides the messages: the system prompt and the tool definitions. */
function overhead(ctx: RunContext): number {
  const exact = ctx.tokens.exact;
  if (ctx.overhead?.exact !== exact || ctx.overhead.system !== ctx.system) {
    const tokens = ctx.tokens.text(ctx.system) + ctx.tokens.text(JSON.stringify(ctx.tools)) + REPLY_PRIMING_TOKENS;
    ctx.overhead = { exact, system: ctx.system, tokens };
  }
  return ctx.overhead.tokens;
}

/** The next prompt's size: provider usage up to the last step, local counts after it. O(items since the last measure). */
export function measureContext(ctx: RunContext): number {
  return ctx.size.measure(ctx.state, ctx.tokens, overhead(ctx));
}

/**
 * The recent tail to keep, in local tokens. The budget is a share of the model's room as the
 * provider counts; when the provider's count of this context (`measured`) is larger than the local
 * one (another tokenizer, framing the local count misses), the budget shrinks by the same ratio so
 * the compaction frees what the provider needs. After the provider refused a prompt, at most half of
 * the messages are kept; when even that keeps everything, nothing is.
 */
function tailBudget(ctx: RunContext, usable: number, measured: number, refused: boolean): number {
  let local = overhead(ctx);
  let messages = 0;
  for (let i = 0; i < ctx.state.length; i++) messages += ctx.tokens.message(ctx.state.items[i]!.message);
  local += messages;
  const ratio = Math.max(1, measured / Math.max(1, local));
  let budget = Math.floor(keepRecentBudget(usable) / ratio);
  if (refused) budget = Math.min(budget, Math.floor(messages / 2));
  return selectCut(ctx.state, ctx.tokens.message, budget) ? budget : 0;
}

export interface GuardOptions {
  /** Compact even if the measure fits: the provider said the prompt did not (the step is retried once). */
  force?: boolean;
}

/**
 * Keeps the next prompt within the model's room, checked before every step: after the
 * user's message and after each step's tool results. Over `usable` it prunes old tool outputs
 * (stage 1) and, if that is not enough, has the compaction agent summarize (stage 2); an automatic
 * compaction mid-turn is followed by the synthetic continuation. Returns whether anything changed.
 */
/** The summary and its entries inside every extension's `aroundCompaction`, the first extension outermost. */
function aroundCompaction(ctx: RunContext, compact: () => Promise<readonly Entry[]>): Promise<readonly Entry[]> {
  let run = compact;
  for (let i = ctx.extensions.length - 1; i >= 0; i--) {
    const ext = ctx.extensions[i]!;
    if (!ext.aroundCompaction) continue;
    const inner = run;
    run = () => ext.aroundCompaction!(ctx, inner);
  }
  return run();
}

/**
 * True when the next prompt fits as the guard would measure it now, so `guardContext` would change
 * nothing: the loop asks this first every step, and waits on the guard only when it says no.
 */
export function contextFits(ctx: RunContext): boolean {
  const limit = ctx.model.info.limit;
  return limit.context === 0 || measureContext(ctx) <= usableTokens(limit);
}

export async function guardContext(ctx: RunContext, options: GuardOptions = {}): Promise<boolean> {
  const limit = ctx.model.info.limit;
  if (limit.context === 0) return false;
  const usable = usableTokens(limit);
  if (!options.force) {
    if (measureContext(ctx) <= usable) return false;
    if (!ctx.tokens.exact) {
      await ctx.tokens.load();
      if (measureContext(ctx) <= usable) return false;
    }
  } else {
    await ctx.tokens.load();
  }
  const before = measureContext(ctx);

  const prune = selectPrune(ctx.state, ctx.tokens.message);
  if (prune) {
    await appendCustom(ctx, PRUNE_ENTRY_TYPE, prune);
    if (!options.force && measureContext(ctx) <= usable) return true;
  }

  const compact = async (): Promise<readonly Entry[]> => {
    const keepTokens = tailBudget(ctx, usable, before, options.force === true);
    const summarizer = new Summarizer({
      model: ctx.summaryModel(),
      count: ctx.tokens.text,
      clock: ctx.clock,
      retry: ctx.retry,
      signal: ctx.signal,
      emit: ctx.emit,
    });
    let plan: Awaited<ReturnType<typeof planCompaction>>;
    try {
      plan = await planCompaction({
        state: ctx.state,
        summarizer,
        count: ctx.tokens.message,
        keepTokens,
        tokensBefore: before,
        mode: "auto",
        continuation: true,
      });
    } catch (err) {
      // A summary that failed leaves no entry to read its spending from.
      chargeRun(ctx, { usage: summarizer.usage, cost: summarizer.cost, costKnown: summarizer.costKnown });
      throw err;
    }
    const written: Entry[] = [];
    for (const entry of plan.entries) written.push(await appendEntry(ctx, entry));
    return written;
  };
  await aroundCompaction(ctx, compact);
  const after = measureContext(ctx);
  if (after > usable) {
    const fixed = overhead(ctx);
    throw new ArborError(
      "context_overflow",
      `Even after compaction the context takes about ${after.toLocaleString("en-US")} tokens (${fixed.toLocaleString("en-US")} of them the system prompt and tool definitions); ${ctx.model.ref} has room for ${usable.toLocaleString("en-US")}. Use a model with a larger context, fewer tools, or shorter instructions.`,
    );
  }
  return true;
}
