import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  SharedV4Warning,
} from "@ai-sdk/provider";

/**
 * A `doGenerate` result as the stream parts `doStream` would have sent, so one recording format
 * serves both calls: a response recorded from either can be replayed to either.
 */
export function partsFromGenerate(result: LanguageModelV4GenerateResult): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: result.warnings }];
  const response = result.response;
  if (response && (response.id !== undefined || response.modelId !== undefined || response.timestamp !== undefined)) {
    parts.push({
      type: "response-metadata",
      ...(response.id === undefined ? {} : { id: response.id }),
      ...(response.modelId === undefined ? {} : { modelId: response.modelId }),
      ...(response.timestamp === undefined ? {} : { timestamp: response.timestamp }),
    });
  }
  result.content.forEach((content, i) => {
    switch (content.type) {
      case "text":
      case "reasoning": {
        const id = `${content.type}-${i}`;
        const pm = content.providerMetadata ? { providerMetadata: content.providerMetadata } : {};
        parts.push({ type: `${content.type}-start`, id, ...pm });
        parts.push({ type: `${content.type}-delta`, id, delta: content.text });
        parts.push({ type: `${content.type}-end`, id, ...pm });
        break;
      }
      default:
        parts.push(content);
    }
  });
  parts.push({
    type: "finish",
    usage: result.usage,
    finishReason: result.finishReason,
    ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
  });
  return parts;
}

/** Recorded stream parts folded into a `doGenerate` result: text and reasoning blocks joined in the order they opened. */
export function generateFromParts(parts: readonly LanguageModelV4StreamPart[]): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  const open = new Map<string, { chunks: string[]; at: number }>();
  let warnings: SharedV4Warning[] = [];
  let result: Pick<LanguageModelV4GenerateResult, "usage" | "finishReason" | "providerMetadata"> | undefined;
  let response: LanguageModelV4GenerateResult["response"];
  for (const part of parts) {
    switch (part.type) {
      case "stream-start":
        warnings = part.warnings;
        break;
      case "response-metadata": {
        const { type: _type, ...metadata } = part;
        response = metadata;
        break;
      }
      case "text-start":
      case "reasoning-start": {
        const kind = part.type === "text-start" ? "text" : "reasoning";
        open.set(`${kind}:${part.id}`, { chunks: [], at: content.length });
        content.push({ type: kind, text: "", ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}) });
        break;
      }
      case "text-delta":
      case "reasoning-delta": {
        const block = open.get(`${part.type === "text-delta" ? "text" : "reasoning"}:${part.id}`);
        block?.chunks.push(part.delta);
        break;
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${part.type === "text-end" ? "text" : "reasoning"}:${part.id}`;
        const block = open.get(key);
        if (block) {
          (content[block.at] as { text: string }).text = block.chunks.join("");
          open.delete(key);
        }
        break;
      }
      case "finish":
        result = {
          usage: part.usage,
          finishReason: part.finishReason,
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        };
        break;
      case "tool-call":
      case "tool-result":
      case "tool-approval-request":
      case "file":
      case "reasoning-file":
      case "source":
      case "custom":
        content.push(part);
        break;
      default:
        // Tool input deltas are implied by the tool-call; errors, raw chunks and pings are not recorded.
        break;
    }
  }
  // A block that never ended still counts (a provider may omit the end part before finish).
  for (const block of open.values()) (content[block.at] as { text: string }).text = block.chunks.join("");
  return {
    content,
    finishReason: result?.finishReason ?? { unified: "other", raw: undefined },
    usage: result?.usage ?? {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    ...(result?.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
    warnings,
    ...(response ? { response } : {}),
  };
}
