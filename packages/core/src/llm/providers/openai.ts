import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const openai = defineProvider({
  name: "openai",
  help: { label: "OpenAI (Responses API)", exampleModel: "gpt-5" },
  env: keyedEnv("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
  // The Responses API: OpenAI's current API, which keeps reasoning items across turns. Servers that
  // speak only Chat Completions are what openai-compatible is for.
  ...aiSdk("openai.responses", async () => (await import("@ai-sdk/openai")).createOpenAI, { embeddings: true }),
  // OpenAI sends reasoning summaries only when asked; the effort itself is the SDK's mapping of `reasoning`.
  thinking: () => ({ openai: { reasoningSummary: "auto" } }),
  models: {
    "gpt-4o": priced(128_000, 16_384, 2.5, 10, 1.25),
    "gpt-4o-mini": priced(128_000, 16_384, 0.15, 0.6, 0.075),
    "gpt-4.1": priced(1_047_576, 32_768, 2, 8, 0.5),
    "gpt-4.1-mini": priced(1_047_576, 32_768, 0.4, 1.6, 0.1),
    "gpt-4.1-nano": priced(1_047_576, 32_768, 0.1, 0.4, 0.025),
    o3: priced(200_000, 100_000, 2, 8, 0.5),
    "o4-mini": priced(200_000, 100_000, 1.1, 4.4, 0.275),
    "gpt-5": priced(400_000, 128_000, 1.25, 10, 0.125),
    "gpt-5-mini": priced(400_000, 128_000, 0.25, 2, 0.025),
    "gpt-5-nano": priced(400_000, 128_000, 0.05, 0.4, 0.005),
  },
});
