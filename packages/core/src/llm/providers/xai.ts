import { priced } from "../../model/model-info.js";
import { defineProvider, keyedEnv } from "./definition.js";

export const xai = defineProvider({
  name: "xai",
  help: { label: "xAI", exampleModel: "grok-4" },
  env: keyedEnv("XAI_API_KEY", "XAI_BASE_URL", "https://api.x.ai/v1"),
  sdkProvider: "xai.responses",
  optionsKey: "xai",
  load: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/xai")).createXai({ baseURL, apiKey, fetch }).languageModel(model),
  models: {
    "grok-4": priced(256_000, 64_000, 3, 15, 0.75),
  },
});
