import type { LanguageModelV4CallOptions, SharedV4ProviderOptions } from "@ai-sdk/provider";
import type { ThinkingLevel, ThinkingLevelName } from "../model/entry.js";
import type { ThinkingRequest } from "./providers/definition.js";
import { PROVIDER_DEFINITIONS } from "./providers/index.js";

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

/**
 * Every provider's own options for a level, side by side: a call does not know which provider its
 * model is (it may be an instance the caller made), and each SDK package reads only its own key.
 * Providers sharing a package (and so a key) have their options merged.
 */
function providerThinkingOptions(level: ThinkingRequest): SharedV4ProviderOptions {
  const options: SharedV4ProviderOptions = {};
  for (const definition of PROVIDER_DEFINITIONS) {
    for (const [key, own] of Object.entries(definition.thinking?.(level) ?? {})) options[key] = { ...options[key], ...own };
  }
  return options;
}

/**
 * Call options for a thinking level. The AI SDK maps its `reasoning` option to each provider's own
 * setting (Anthropic's thinking budget, OpenAI's reasoning effort, Gemini's thinking config, …); each
 * provider's definition adds what that mapping lacks (asking to see the reasoning, a token budget as
 * the provider's own budget option). A budget goes as the level it falls in to the providers that take
 * no budget. No level means the provider's default, untouched. Pure.
 */
export function thinkingCallOptions(
  level: ThinkingLevel | null | undefined,
): Pick<LanguageModelV4CallOptions, "reasoning" | "providerOptions"> {
  if (level === null || level === undefined) return {};
  if (level === "off") return { reasoning: "none" };
  return {
    reasoning: typeof level === "string" ? level : effortForBudget(level),
    providerOptions: providerThinkingOptions(level),
  };
}
