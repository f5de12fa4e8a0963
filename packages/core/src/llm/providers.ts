import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ProviderName } from "./model-ref.js";

/** The environment a provider reads: shown in missing-key errors and the CLI's help. */
export interface ProviderEnv {
  /** The variable holding the API key. */
  apiKey: string;
  /** False when calls may go out without a key: local OpenAI-compatible servers (Ollama, vLLM) usually want none. */
  apiKeyRequired: boolean;
  /** The variable overriding the base URL; undefined for openai-compatible, whose URL comes from the config. */
  baseURL: string | undefined;
  /** Where requests go when nothing overrides it; undefined when the user has to say. */
  defaultBaseURL: string | undefined;
}

const PROVIDER_ENV: Readonly<Record<ProviderName, ProviderEnv>> = {
  openai: {
    apiKey: "OPENAI_API_KEY",
    apiKeyRequired: true,
    baseURL: "OPENAI_BASE_URL",
    defaultBaseURL: "https://api.openai.com/v1",
  },
  anthropic: {
    apiKey: "ANTHROPIC_API_KEY",
    apiKeyRequired: true,
    baseURL: "ANTHROPIC_BASE_URL",
    defaultBaseURL: "https://api.anthropic.com/v1",
  },
  // ARBOR_BASE_URL reaches the registry as config.baseURL (with --base-url and arbor.json), not from the env directly.
  "openai-compatible": { apiKey: "ARBOR_API_KEY", apiKeyRequired: false, baseURL: undefined, defaultBaseURL: undefined },
};

export function providerEnv(provider: ProviderName): ProviderEnv {
  return PROVIDER_ENV[provider];
}

/** The environment variable holding a provider's API key, e.g. `OPENAI_API_KEY`. */
export function apiKeyVariable(provider: ProviderName): string {
  return PROVIDER_ENV[provider].apiKey;
}

export interface ProviderModelSettings {
  provider: ProviderName;
  model: string;
  baseURL: string;
  apiKey: string | undefined;
  fetch?: typeof fetch | undefined;
}

/**
 * Builds the AI SDK model. Base URL and key are always passed explicitly: left undefined, the SDK
 * providers fall back to `process.env` themselves, which would bypass the registry's injected env.
 */
export function createProviderModel(settings: ProviderModelSettings): LanguageModelV4 {
  const { model, baseURL, apiKey, fetch } = settings;
  switch (settings.provider) {
    case "openai":
      // The Responses API (also what `createOpenAI()(id)` gives): OpenAI's current API, which keeps reasoning
      // items across turns. Servers that speak only Chat Completions are what openai-compatible is for.
      return createOpenAI({ baseURL, apiKey, fetch }).responses(model);
    case "anthropic":
      return createAnthropic({ baseURL, apiKey, fetch }).languageModel(model);
    case "openai-compatible":
      // includeUsage sends stream_options.include_usage: without it most servers report no tokens when streaming.
      return createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, includeUsage: true, fetch }).chatModel(model);
  }
}
