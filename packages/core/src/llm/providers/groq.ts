import { priced } from "../../model/model-info.js";
import { aiSdk, defineProvider, keyedEnv } from "./definition.js";

export const groq = defineProvider({
  name: "groq",
  help: { label: "Groq", exampleModel: "llama-3.3-70b-versatile" },
  env: keyedEnv("GROQ_API_KEY", "GROQ_BASE_URL", "https://api.groq.com/openai/v1"),
  ...aiSdk("groq.chat", async () => (await import("@ai-sdk/groq")).createGroq),
  models: {
    "llama-3.3-70b-versatile": priced(131_072, 32_768, 0.59, 0.79),
  },
});
