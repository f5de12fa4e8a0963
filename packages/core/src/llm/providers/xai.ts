import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const xai = defineProvider({
  name: "xai",
  help: { label: "xAI", exampleModel: "grok-4" },
  env: keyedEnv("XAI_API_KEY", "XAI_BASE_URL", "https://api.x.ai/v1"),
  ...aiSdk("xai.responses", async () => (await import("@ai-sdk/xai")).createXai),
  models: {
    "grok-4": priced(256_000, 64_000, 3, 15, 0.75),
  },
});
