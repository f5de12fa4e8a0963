import { defineProvider } from "./definition.js";

/** Any server speaking OpenAI's Chat Completions: Ollama, vLLM, LM Studio, gateways. */
export const openaiCompatible = defineProvider({
  name: "openai-compatible",
  help: { label: "any OpenAI-compatible server", exampleModel: "llama3.1" },
  // No base URL variable of its own: ARBOR_BASE_URL reaches the registry as config.baseURL (with
  // --base-url and arbor.json), not from the env directly.
  env: {
    apiKey: "ARBOR_API_KEY",
    apiKeyRequired: false,
    baseURL: undefined,
    defaultBaseURL: undefined,
    baseURLHint: "http://localhost:11434/v1",
  },
  sdkProvider: "openai-compatible.chat",
  optionsKey: "openai-compatible",
  // includeUsage sends stream_options.include_usage: without it most servers report no tokens when streaming.
  load: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai-compatible"))
      .createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, includeUsage: true, fetch })
      .chatModel(model),
  loadEmbedding: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai-compatible"))
      .createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, fetch })
      .embeddingModel(model),
});
