import type { TokenUsage } from "../model/message.js";

/** The tokens a cap counts: input plus output (reasoning is part of output). */
export function spentTokens(usage: TokenUsage | undefined): number {
  return usage ? usage.input + usage.output : 0;
}

/** A cap on what one run and every sub-agent under it may spend together (`agent.maxTraceTokens` / `maxTraceCost`). */
export interface SpendCap {
  /** Input plus output tokens. */
  maxTokens?: number;
  /** Dollars, from the catalog's prices; calls of a model without a price are not counted. */
  maxCost?: number;
}

/**
 * What a run and the sub-runs it starts have spent so far, shared by all of them: made by the top
 * run and handed to each sub-run it launches, so a sub-agent's calls count against the same cap
 * the moment they are made, not when it returns. Each run adds only its own model calls.
 */
export class TraceSpend {
  private tokens = 0;
  private cost = 0;

  constructor(readonly cap: SpendCap) {}

  add(usage: TokenUsage | undefined, cost: number): void {
    this.addTokens(spentTokens(usage), cost);
  }

  /** Counts `tokens` (input plus output) and `cost`: for a caller that has the sum, not a usage. */
  addTokens(tokens: number, cost: number): void {
    this.tokens += tokens;
    this.cost += cost;
  }

  /**
   * Why nothing more may be spent, in words for the user and the model; undefined while under the cap.
   * With `moreTokens` and `moreCost`: as it will be once they are added.
   */
  spent(moreTokens = 0, moreCost = 0): string | undefined {
    const { maxTokens, maxCost } = this.cap;
    const tokens = this.tokens + moreTokens;
    const cost = this.cost + moreCost;
    if (maxTokens !== undefined && tokens >= maxTokens) {
      return `the trace's token budget of ${maxTokens} (agent.maxTraceTokens) is spent: ${tokens} tokens across this agent and its sub-agents`;
    }
    if (maxCost !== undefined && cost >= maxCost) {
      return `the trace's cost budget of $${maxCost} (agent.maxTraceCost) is spent: $${cost.toFixed(4)} across this agent and its sub-agents`;
    }
    return undefined;
  }
}
