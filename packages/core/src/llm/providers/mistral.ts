import { priced } from "../../model/model-info.js";
import { defineProvider, keyedEnv } from "./definition.js";

export const mistral = defineProvider({
  name: "mistral",
  help: { label: "Mistral", exampleModel: "mistral-large-latest" },
  env: keyedEnv("MISTRAL_API_KEY", "MISTRAL_BASE_URL", "https://api.mistral.ai/v1"),
  sdkProvider: "mistral.chat",
  optionsKey: "mistral",
  load: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/mistral")).createMistral({ baseURL, apiKey, fetch }).languageModel(model),
  loadEmbedding: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/mistral")).createMistral({ baseURL, apiKey, fetch }).embedding(model),
  models: {
    "mistral-large-latest": priced(131_072, 16_384, 2, 6),
    "mistral-small-latest": priced(131_072, 16_384, 0.1, 0.3),
  },
});
