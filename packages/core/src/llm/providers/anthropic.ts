import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const anthropic = defineProvider({
  name: "anthropic",
  help: { label: "Anthropic", exampleModel: "claude-sonnet-4-5" },
  env: keyedEnv("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com/v1"),
  ...aiSdk("anthropic.messages", async () => (await import("@ai-sdk/anthropic")).createAnthropic),
  // A level is the SDK's own mapping to a thinking budget; a token budget goes as `budget_tokens` itself.
  thinking: (level) =>
    typeof level === "number" ? { anthropic: { thinking: { type: "enabled", budgetTokens: level } } } : undefined,
  // Anthropic caches a prompt only up to the breakpoints a request marks.
  cacheMark: () => ({ anthropic: { cacheControl: { type: "ephemeral" } } }),
  models: {
    "claude-opus-4-1": priced(200_000, 32_000, 15, 75, 1.5, 18.75),
    "claude-sonnet-4-5": priced(200_000, 64_000, 3, 15, 0.3, 3.75),
    "claude-sonnet-4-0": priced(200_000, 64_000, 3, 15, 0.3, 3.75),
    "claude-haiku-4-5": priced(200_000, 64_000, 1, 5, 0.1, 1.25),
    "claude-3-5-haiku-latest": priced(200_000, 8_192, 0.8, 4, 0.08, 1),
  },
});
