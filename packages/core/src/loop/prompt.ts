import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ReasoningPart,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type { Message } from "../model/message.js";
import type { FilePart, ToolResultPart } from "../model/parts.js";
import type { ContextState } from "../session/context.js";

/**
 * Whether a provider (the AI SDK model's `provider`) reads files inside a tool result. Those not
 * listed (Chat Completions APIs) would turn them into JSON text, base64 and all, so they are sent a
 * note instead.
 */
export function takesToolFiles(provider: string): boolean {
  return /^(anthropic|google|vertex|openai\.responses|azure\.responses)(\.|$)/.test(provider);
}

/** One stored message in the provider's prompt shape; `toolFiles`: see `takesToolFiles`. Pure. */
export function toProviderMessage(message: Message, toolFiles = true): LanguageModelV4Message {
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
              return withProviderOptions<LanguageModelV4TextPart>({ type: "text", text: p.text }, p.providerMetadata);
            case "reasoning":
              return withProviderOptions<LanguageModelV4ReasoningPart>({ type: "reasoning", text: p.text }, p.providerMetadata);
            case "file":
              return filePart(p);
            case "tool-call":
              return withProviderOptions<LanguageModelV4ToolCallPart>(
                { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input },
                p.providerMetadata,
              );
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
          output: toolOutput(p, toolFiles),
        })),
      };
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

/**
 * What a provider attached to a part goes back to it as that part's provider options; each provider
 * reads only its own key, so metadata of another provider is ignored rather than sent on.
 */
function withProviderOptions<T extends { providerOptions?: SharedV4ProviderOptions }>(
  part: T,
  metadata: Record<string, unknown> | undefined,
): T {
  // Set last, as a spread of it was: no object made for the parts without (nearly all).
  if (metadata) part.providerOptions = metadata as SharedV4ProviderOptions;
  return part;
}

/**
 * A result's output as the provider reads it: with attachments (and text output), a `content` output
 * of its text and a file part per attachment; the provider's adapter turns those into image or file
 * blocks where its API takes them in a tool result.
 */
function toolOutput(p: ToolResultPart, toolFiles: boolean): LanguageModelV4ToolResultOutput {
  // Most results have no attachments: no lists are made for them.
  if (p.attachments === undefined || p.attachments.length === 0 || p.output.type !== "text") {
    return p.output as LanguageModelV4ToolResultOutput;
  }
  const files = p.attachments.filter((a) => a.data !== undefined);
  if (files.length === 0) return p.output as LanguageModelV4ToolResultOutput;
  if (!toolFiles) {
    const notes = files.map((a) => `[${a.filename ?? a.mediaType} attached; this model's API takes no files in tool results]`);
    return { type: "text", value: [p.output.value, ...notes].join("\n") };
  }
  return {
    type: "content",
    value: [
      ...(p.output.value !== "" ? [{ type: "text" as const, text: p.output.value }] : []),
      ...files.map((a) => ({
        type: "file" as const,
        data: { type: "data" as const, data: a.data! },
        mediaType: a.mediaType,
        ...(a.filename !== undefined ? { filename: a.filename } : {}),
      })),
    ],
  };
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
 * added since the previous step, so per-step work does not grow with history. A state
 * whose items were replaced (a compaction, a branch) is converted again from the start.
 */
export class PromptCache {
  /** How many context items have been converted. */
  private converted = 0;
  private source: ContextState["items"] | undefined;
  /**
   * The prompt itself, grown in place: `[system, ...messages]`, leaving out messages providers would
   * refuse (an assistant turn that produced nothing). Returned as is, so callers must not keep it
   * across steps expecting it to stay the same (providers serialize it during the call).
   */
  private out: LanguageModelV4Message[] = [];
  private system: LanguageModelV4Message | undefined;

  /** `toolFiles`: whether the run's provider reads files in tool results (`takesToolFiles`). */
  constructor(private readonly toolFiles = true) {}

  prompt(system: string, state: ContextState): LanguageModelV4Prompt {
    if (this.source !== state.items || this.converted > state.length) {
      this.converted = 0;
      this.source = state.items;
      this.out = [];
      this.system = undefined;
    }
    if (this.system?.content !== system) this.system = { role: "system", content: system };
    if (this.out.length === 0) this.out.push(this.system);
    else this.out[0] = this.system;
    for (; this.converted < state.length; this.converted++) {
      const message = state.items[this.converted]!.message;
      if (message.content.length > 0) this.out.push(toProviderMessage(message, this.toolFiles));
    }
    return this.out;
  }
}
