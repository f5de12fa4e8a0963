import type { Message } from "../model/message.js";
import type { Part, ToolResultOutput } from "../model/parts.js";

/**
 * Local token counts, used where the provider's usage is not known yet. The structure
 * of a message's cost is here and pure; the text counter is passed in, so the same code counts with
 * the o200k tokenizer (TokenCounter) or with a cheap upper bound.
 */

/**
 * Chat formats wrap each message in a few tokens: OpenAI's `<|start|>role<|message|>…<|end|>` is 3
 * tokens of framing plus the role, itself one token.
 */
export const TOKENS_PER_MESSAGE = 4;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;
/** What an image or other binary file is assumed to cost when only a reference is sent. */
export const FILE_TOKENS = 1_000;

export type CountText = (text: string) => number;

/**
 * An upper bound that needs no tokenizer: every token of a byte-level BPE (OpenAI's, Anthropic's) is
 * at least one UTF-8 byte. About 4× the real count for English and code; used to skip loading the
 * tokenizer while a context is far from full.
 */
export function tokenUpperBound(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function outputText(output: ToolResultOutput): string {
  return output.type === "text" || output.type === "error-text" ? output.value : (JSON.stringify(output.value) ?? "");
}

function partTokens(part: Part, count: CountText): number {
  switch (part.type) {
    case "text":
    case "reasoning":
      return count(part.text);
    case "tool-call":
      // The call is sent as its name and its JSON arguments, plus a few tokens of framing.
      return count(part.toolName) + count(typeof part.input === "string" ? part.input : (JSON.stringify(part.input) ?? "")) + 3;
    case "tool-result":
      return count(outputText(part.output)) + 3 + (part.attachments?.length ?? 0) * FILE_TOKENS;
    case "file":
      if (part.data !== undefined && part.mediaType.startsWith("text/")) {
        return count(Buffer.from(part.data, "base64").toString("utf8"));
      }
      return FILE_TOKENS;
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/** Tokens one message adds to a prompt: its parts plus the chat format's per-message framing. */
export function messageTokens(message: Message, count: CountText): number {
  let total = TOKENS_PER_MESSAGE;
  for (const part of message.content) total += partTokens(part as Part, count);
  return total;
}
