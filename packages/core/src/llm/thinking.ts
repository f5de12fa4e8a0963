import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { ThinkingLevel, ThinkingLevelName } from "../model/entry.js";

type Effort = Exclude<ThinkingLevelName, "off">;

/**
 * The level a token budget falls in, for providers that take an effort rather than a budget
 * (OpenAI, Azure, xAI, Groq, …): under 1,024 tokens minimal, under 8,192 low, under 24,576 medium,
 * under 49,152 high, more xhigh. The edges follow the budgets the AI SDK itself derives from levels
 * for a 64k-token answer, so a budget and the level it maps to ask for about the same thinking.
 */
export function effortForBudget(budgetTokens: number): Effort {
  if (budgetTokens < 1_024) return "minimal";
  if (budgetTokens < 8_192) return "low";
  if (budgetTokens < 24_576) return "medium";
  if (budgetTokens < 49_152) return "high";
  return "xhigh";
}

/** Asking to see the reasoning: OpenAI gives summaries and Gemini its thoughts only when asked. */
const SHOW_REASONING = {
  openai: { reasoningSummary: "auto" },
  // An Azure model is named by its deployment, which says nothing of the model behind it; left to
  // guess from that name, the AI SDK drops the reasoning options of every custom-named deployment.
  azure: { reasoningSummary: "auto", forceReasoning: true },
  google: { thinkingConfig: { includeThoughts: true } },
} as const;

/**
 * Call options for a thinking level. The AI SDK maps its `reasoning` option to each provider's own
 * setting (Anthropic's thinking budget, OpenAI's reasoning effort, Gemini's thinking config, …).
 * A token budget goes as the budget itself to the providers that take one (Anthropic
 * `budget_tokens`, Gemini `thinkingBudget`, Bedrock `reasoningConfig.budgetTokens`) and as the level
 * it falls in to the rest. No level means the provider's default, untouched. Pure.
 */
export function thinkingCallOptions(
  level: ThinkingLevel | null | undefined,
): Pick<LanguageModelV4CallOptions, "reasoning" | "providerOptions"> {
  if (level === null || level === undefined) return {};
  if (level === "off") return { reasoning: "none" };
  if (typeof level === "string") return { reasoning: level, providerOptions: SHOW_REASONING };
  return {
    reasoning: effortForBudget(level),
    providerOptions: {
      ...SHOW_REASONING,
      anthropic: { thinking: { type: "enabled", budgetTokens: level } },
      google: { thinkingConfig: { includeThoughts: true, thinkingBudget: level } },
      bedrock: { reasoningConfig: { type: "enabled", budgetTokens: level } },
    },
  };
}
