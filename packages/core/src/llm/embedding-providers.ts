import type { EmbeddingModelV4 } from "@ai-sdk/provider";
import type { ProviderName } from "./model-ref.js";
import { bedrockSettings, type ProviderModelSettings } from "./providers.js";

type EmbeddingLoader = (settings: ProviderModelSettings) => Promise<EmbeddingModelV4>;

/**
 * The providers whose AI SDK package makes embedding models, each loaded on first use like the
 * language models, with the same explicit base URL and key (never the SDK's own reading of process.env).
 * Providers left out have no embedding model in their package.
 */
const EMBEDDING_LOADERS: Partial<Record<ProviderName, EmbeddingLoader>> = {
  openai: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai")).createOpenAI({ baseURL, apiKey, fetch }).embeddingModel(model),
  google: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/google")).createGoogle({ baseURL, apiKey, fetch }).embeddingModel(model),
  azure: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/azure")).createAzure({ baseURL, apiKey, fetch }).embeddingModel(model),
  mistral: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/mistral")).createMistral({ baseURL, apiKey, fetch }).embedding(model),
  bedrock: async (settings) =>
    (await import("@ai-sdk/amazon-bedrock")).createAmazonBedrock(bedrockSettings(settings)).embeddingModel(settings.model),
  openrouter: async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai-compatible"))
      .createOpenAICompatible({ name: "openrouter", baseURL, apiKey, fetch })
      .embeddingModel(model),
  "openai-compatible": async ({ model, baseURL, apiKey, fetch }) =>
    (await import("@ai-sdk/openai-compatible"))
      .createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, fetch })
      .embeddingModel(model),
};

/** The providers that can make an embedding model, for error messages. */
export const EMBEDDING_PROVIDERS = Object.keys(EMBEDDING_LOADERS) as ProviderName[];

export function embeddingLoader(provider: ProviderName): EmbeddingLoader | undefined {
  return EMBEDDING_LOADERS[provider];
}
