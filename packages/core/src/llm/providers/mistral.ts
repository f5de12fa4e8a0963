import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const mistral = defineProvider({
  name: "mistral",
  help: { label: "Mistral", exampleModel: "mistral-large-latest" },
  env: keyedEnv("MISTRAL_API_KEY", "MISTRAL_BASE_URL", "https://api.mistral.ai/v1"),
  ...aiSdk("mistral.chat", async () => (await import("@ai-sdk/mistral")).createMistral, { embeddings: true }),
  models: {
    "mistral-large-latest": priced(131_072, 16_384, 2, 6),
    "mistral-small-latest": priced(131_072, 16_384, 0.1, 0.3),
  },
});
