import type { Message } from "../model/message.js";
import type { ContextItem, ContextState } from "../session/context.js";
import { contextTokensAfter } from "./overflow.js";

export interface MessageCounter {
  /** False while counts are upper bounds (the tokenizer is not loaded). */
  readonly exact: boolean;
  message(message: Message): number;
}

/**
 * The size of the next prompt, kept incrementally across the steps of a run, so per-step work
 * does not grow with history. Provider usage is the anchor where known: an assistant message's
 * reported `input + output` is everything up to and including it, so only the items after the last
 * such message are counted locally. A new items buffer (a compaction, a prune, another branch) or a
 * switch from bound to exact counts starts the measure over, once.
 */
export class ContextSize {
  private items: readonly ContextItem[] | undefined;
  private upTo = 0;
  private total = 0;
  private exact = false;
  private fromProvider = false;

  /** Tokens of `overhead` (system prompt, tool definitions) plus the context's messages. */
  measure(state: ContextState, counter: MessageCounter, overhead: number): number {
    if (this.items !== state.items || state.length < this.upTo || this.exact !== counter.exact) {
      this.items = state.items;
      this.upTo = 0;
      this.total = overhead;
      this.exact = counter.exact;
      this.fromProvider = false;
    }
    for (; this.upTo < state.length; this.upTo++) {
      const message = state.items[this.upTo]!.message;
      const usage = message.role === "assistant" ? message.tokens : undefined;
      if (usage && usage.input > 0 && this.upTo >= state.rewrittenAt) {
        this.total = contextTokensAfter(usage);
        this.fromProvider = true;
      } else {
        this.total += counter.message(message);
      }
    }
    return this.total;
  }

  /** Whether the last measure rests on a provider-reported count (else it is all local). */
  get anchored(): boolean {
    return this.fromProvider;
  }
}
