import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const deepseek = defineProvider({
  name: "deepseek",
  help: { label: "DeepSeek", exampleModel: "deepseek-chat" },
  env: keyedEnv("DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "https://api.deepseek.com"),
  ...aiSdk("deepseek.chat", async () => (await import("@ai-sdk/deepseek")).createDeepSeek),
  models: {
    "deepseek-chat": priced(128_000, 8_192, 0.28, 0.42, 0.028),
    "deepseek-reasoner": priced(128_000, 65_536, 0.28, 0.42, 0.028),
  },
});
