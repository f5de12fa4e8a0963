import type { LanguageModelV4FilePart, LanguageModelV4Message, LanguageModelV4Prompt } from "@ai-sdk/provider";
import type { Message } from "../model/message.js";
import type { FilePart } from "../model/parts.js";
import type { ContextState } from "../session/context.js";

/** One stored message in the provider's prompt shape. Pure. */
export function toProviderMessage(message: Message): LanguageModelV4Message {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content.map((p) => p.text).join("\n\n") };
    case "user":
      return {
        role: "user",
        content: message.content.map((p) => (p.type === "text" ? { type: "text", text: p.text } : filePart(p))),
      };
    case "assistant":
      return {
        role: "assistant",
        content: message.content.map((p) => {
          switch (p.type) {
            case "text":
              return { type: "text", text: p.text };
            case "reasoning":
              return p.providerMetadata
                ? { type: "reasoning", text: p.text, providerOptions: p.providerMetadata as never }
                : { type: "reasoning", text: p.text };
            case "file":
              return filePart(p);
            case "tool-call":
              return { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input };
            default: {
              const unreachable: never = p;
              return unreachable;
            }
          }
        }),
      };
    case "tool":
      return {
        role: "tool",
        content: message.content.map((p) => ({
          type: "tool-result",
          toolCallId: p.toolCallId,
          toolName: p.toolName,
          output: p.output as never,
        })),
      };
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

function filePart(p: FilePart): LanguageModelV4FilePart {
  const base = { type: "file" as const, mediaType: p.mediaType, ...(p.filename ? { filename: p.filename } : {}) };
  if (p.url !== undefined) return { ...base, data: { type: "url", url: new URL(p.url) } };
  if (p.data !== undefined) return { ...base, data: { type: "data", data: p.data } };
  // A blob-only part: the bytes live out of line and are not loaded for the model (yet); say so.
  return {
    ...base,
    mediaType: "text/plain",
    data: { type: "text", text: `[file ${p.filename ?? p.blob ?? ""} stored out of line]` },
  };
}

/**
 * The provider prompt for a context state, kept incrementally: a step converts only the messages
 * added since the previous step, so per-step work does not grow with history (SPEC 12). A state
 * whose items were replaced (a compaction, a branch) is converted again from the start.
 */
export class PromptCache {
  /** null for a message providers would refuse (an assistant turn that produced nothing). */
  private converted: Array<LanguageModelV4Message | null> = [];
  private source: ContextState["items"] | undefined;

  prompt(system: string, state: ContextState): LanguageModelV4Prompt {
    const sameBuffer = this.source === state.items && this.converted.length <= state.length;
    if (!sameBuffer) {
      this.converted = [];
      this.source = state.items;
    }
    for (let i = this.converted.length; i < state.length; i++) {
      const message = state.items[i]!.message;
      this.converted.push(message.content.length === 0 ? null : toProviderMessage(message));
    }
    const out: LanguageModelV4Message[] = [{ role: "system", content: system }];
    for (let i = 0; i < state.length; i++) {
      const message = this.converted[i];
      if (message) out.push(message);
    }
    return out;
  }
}
