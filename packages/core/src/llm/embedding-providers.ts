import type { EmbeddingModelV4 } from "@ai-sdk/provider";
import type { ProviderName } from "./model-ref.js";
import { PROVIDER_DEFINITIONS } from "./providers/index.js";
import { type ProviderModelSettings, providerDefinition } from "./providers.js";

type EmbeddingLoader = (settings: ProviderModelSettings) => Promise<EmbeddingModelV4>;

/**
 * The providers whose AI SDK package makes embedding models (those defining `loadEmbedding`), for
 * error messages. Each is loaded on first use like the language models, with the same explicit base
 * URL and key (never the SDK's own reading of process.env).
 */
export const EMBEDDING_PROVIDERS: readonly ProviderName[] = PROVIDER_DEFINITIONS.filter(
  (definition) => definition.loadEmbedding !== undefined,
).map((definition) => definition.name);

export function embeddingLoader(provider: ProviderName): EmbeddingLoader | undefined {
  return providerDefinition(provider).loadEmbedding;
}
