import type { Message } from "../model/message.js";
import { type CountText, messageTokens, tokenUpperBound } from "./tokens.js";

type Encoder = { countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number };

/** Text such as `<|endoftext|>` in a file the agent read is counted as text, never refused. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/** Characters of one unbroken word the tokenizer is given at most (see `countLongWords`). */
const WORD_PIECE = 256;

/** Whether a UTF-16 code unit separates words for `countLongWords` (ASCII and the common Unicode spaces). */
function isSpace(code: number): boolean {
  return (
    code <= 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x3000
  );
}

/**
 * Counts a text piece by piece where a word runs longer than `WORD_PIECE` characters: byte-pair
 * merging is quadratic in a word's length, so one 400 KB line without spaces took about a minute
 * of CPU (and held the process) before a run's first model call. A long word is cut into pieces of
 * `WORD_PIECE` characters counted apart, which may be off by about a token per piece (an estimate
 * can carry that); text without such a word is counted whole, exactly. Linear in the text.
 */
function countText(text: string, count: (part: string) => number): number {
  let total = 0;
  let from = 0; // start of the text not yet counted
  let word = 0; // start of the current word
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isSpace(text.charCodeAt(i))) continue;
    if (i - word > WORD_PIECE) {
      if (word > from) total += count(text.slice(from, word));
      for (let p = word; p < i; p += WORD_PIECE) total += count(text.slice(p, Math.min(p + WORD_PIECE, i)));
      from = i;
    }
    word = i + 1;
  }
  if (from < text.length) total += count(text.slice(from));
  return total;
}

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

  /** Tokens of a text: exact once loaded (but for very long words, see `countText`), else an upper bound. */
  readonly text: CountText = (text) => {
    if (text === "") return 0;
    const encoder = this.encoder;
    if (!encoder) return tokenUpperBound(text);
    return countText(text, (part) => encoder.countTokens(part, NO_SPECIAL));
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
