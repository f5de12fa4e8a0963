import { aiSdk, defineProvider, type SdkFactory } from "./definition.js";

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
  ...compatibleSdk("openai-compatible"),
});

/**
 * The SDK half of a provider speaking Chat Completions through the compatible package, which reports
 * models and reads options under the `name` it is given. includeUsage sends
 * stream_options.include_usage: without it most servers report no tokens when streaming.
 */
export function compatibleSdk(name: string) {
  const importFactory = async (): Promise<SdkFactory> => {
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    return (settings) => createOpenAICompatible({ name, includeUsage: true, ...settings });
  };
  return aiSdk(`${name}.chat`, importFactory, { embeddings: true });
}
