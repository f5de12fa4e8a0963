import { defineProvider, keyedEnv } from "./definition.js";

/**
 * OpenRouter speaks Chat Completions; its usage report is on when asked for, like other compatible
 * servers. Everything after `openrouter/` is OpenRouter's own model id, slashes included.
 */
export const openrouter = defineProvider({
  name: "openrouter",
  help: { label: "OpenRouter", exampleModel: "anthropic/claude-sonnet-4.5" },
  env: keyedEnv("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1"),
  sdkProvider: "openrouter.chat",
  // The compatible package reads the options under the name it was given.
  optionsKey: "openrouter",
  load: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai-compatible"))
      .createOpenAICompatible({ name: "openrouter", baseURL, apiKey, includeUsage: true, fetch })
      .chatModel(model),
  loadEmbedding: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai-compatible"))
      .createOpenAICompatible({ name: "openrouter", baseURL, apiKey, fetch })
      .embeddingModel(model),
});
