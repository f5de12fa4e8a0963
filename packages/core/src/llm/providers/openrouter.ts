import { defineProvider, keyedEnv } from "./definition.js";
import { compatibleSdk } from "./openai-compatible.js";

/**
 * OpenRouter speaks Chat Completions; its usage report is on when asked for, like other compatible
 * servers. Everything after `openrouter/` is OpenRouter's own model id, slashes included.
 */
export const openrouter = defineProvider({
  name: "openrouter",
  help: { label: "OpenRouter", exampleModel: "anthropic/claude-sonnet-4.5" },
  env: keyedEnv("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1"),
  ...compatibleSdk("openrouter"),
});
