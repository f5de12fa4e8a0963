import { priced } from "../../model/model-info.js";
import { defineProvider, keyedEnv } from "./definition.js";

export const groq = defineProvider({
  name: "groq",
  help: { label: "Groq", exampleModel: "llama-3.3-70b-versatile" },
  env: keyedEnv("GROQ_API_KEY", "GROQ_BASE_URL", "https://api.groq.com/openai/v1"),
  sdkProvider: "groq.chat",
  optionsKey: "groq",
  load: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/groq")).createGroq({ baseURL, apiKey, fetch }).languageModel(model),
  models: {
    "llama-3.3-70b-versatile": priced(131_072, 32_768, 0.59, 0.79),
  },
});
