import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { ThinkingLevel } from "../model/entry.js";

/**
 * Call options for a thinking level. The AI SDK maps its `reasoning` option to each provider's own
 * setting (Anthropic's thinking budget, OpenAI's reasoning effort, Gemini's thinking config, …);
 * what it does not cover is asking to see the reasoning: OpenAI gives summaries and Gemini its
 * thoughts only when asked. No level means the provider's default, untouched. Pure.
 */
export function thinkingCallOptions(
  level: ThinkingLevel | null | undefined,
): Pick<LanguageModelV4CallOptions, "reasoning" | "providerOptions"> {
  if (level === null || level === undefined) return {};
  if (level === "off") return { reasoning: "none" };
  return {
    reasoning: level,
    providerOptions: {
      openai: { reasoningSummary: "auto" },
      // An Azure model is named by its deployment, which says nothing of the model behind it; left to
      // guess from that name, the AI SDK drops the reasoning options of every custom-named deployment.
      azure: { reasoningSummary: "auto", forceReasoning: true },
      google: { thinkingConfig: { includeThoughts: true } },
    },
  };
}
