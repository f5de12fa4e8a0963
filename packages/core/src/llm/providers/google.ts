import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const google = defineProvider({
  name: "google",
  help: { label: "Google Gemini", exampleModel: "gemini-2.5-pro" },
  env: keyedEnv("GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_BASE_URL", "https://generativelanguage.googleapis.com/v1beta"),
  ...aiSdk("google.generative-ai", async () => (await import("@ai-sdk/google")).createGoogle, { embeddings: true }),
  // Gemini sends its thoughts only when asked; a token budget goes as its own `thinkingBudget`.
  thinking: (level) => ({
    google: {
      thinkingConfig: typeof level === "number" ? { includeThoughts: true, thinkingBudget: level } : { includeThoughts: true },
    },
  }),
  // Prices here are those of prompts up to 200k tokens; longer prompts cost more.
  models: {
    "gemini-2.5-pro": priced(1_048_576, 65_536, 1.25, 10, 0.31),
    "gemini-2.5-flash": priced(1_048_576, 65_536, 0.3, 2.5, 0.075),
    "gemini-3-pro-preview": priced(1_048_576, 65_536, 2, 12, 0.2),
  },
});
