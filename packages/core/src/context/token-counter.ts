import type { Message } from "../model/message.js";
import { type CountText, messageTokens, tokenUpperBound } from "./tokens.js";

type Encoder = { countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number };

/** Text such as `<|endoftext|>` in a file the agent read is counted as text, never refused. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/**
 * Local token counts with OpenAI's o200k_base tokenizer (`gpt-tokenizer`, a maintained pure-JS port): exact for
 * OpenAI's current models, an estimate for others. Loading its ranks takes about 0.25 s, so it is
 * imported only when a count is needed: until then `exact` is false and counts are the byte upper
 * bound. Per-message counts are memoized by message object, so a message is counted once.
 * One counter per runtime; nothing is shared between runtimes but Node's module cache.
 */
export class TokenCounter {
  private encoder: Encoder | undefined;
  private loading: Promise<void> | undefined;
  private memo = new WeakMap<Message, number>();

  get exact(): boolean {
    return this.encoder !== undefined;
  }

  /** Loads the tokenizer (once); counts made after it resolves are exact. */
  load(): Promise<void> {
    this.loading ??= import("gpt-tokenizer/encoding/o200k_base").then((mod) => {
      this.encoder = mod as Encoder;
      this.memo = new WeakMap();
    });
    return this.loading;
  }

  /** Tokens of a text: exact once loaded, else an upper bound. */
  readonly text: CountText = (text) => {
    if (text === "") return 0;
    return this.encoder ? this.encoder.countTokens(text, NO_SPECIAL) : tokenUpperBound(text);
  };

  /** Tokens a message adds to a prompt, memoized. */
  readonly message = (message: Message): number => {
    let n = this.memo.get(message);
    if (n === undefined) {
      n = messageTokens(message, this.text);
      this.memo.set(message, n);
    }
    return n;
  };
}
