import type { LanguageModelV4 } from "@ai-sdk/provider";
import { lazyModel } from "./lazy-model.js";
import type { ProviderName } from "./model-ref.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The environment a provider reads: shown in missing-key errors and the CLI's help. */
export interface ProviderEnv {
  /** The variable holding the API key. */
  apiKey: string;
  /** False when calls may go out without that key: local servers, or a provider with other credentials. */
  apiKeyRequired: boolean;
  /** The variable overriding the base URL; undefined for openai-compatible, whose URL comes from the config. */
  baseURL: string | undefined;
  /** Where requests go when nothing overrides it; undefined when the user has to say. */
  defaultBaseURL: string | undefined;
  /** What to tell a user who has to give the base URL, e.g. an example value. */
  baseURLHint?: string;
}

export interface ProviderModelSettings {
  provider: ProviderName;
  model: string;
  baseURL: string;
  apiKey: string | undefined;
  fetch?: typeof fetch | undefined;
  /** The injected environment, for providers whose credentials are more than one key (Bedrock). */
  env?: Env;
}

interface ProviderSpec {
  env: ProviderEnv;
  /**
   * The `provider` string the AI SDK's model reports (cache marks, telemetry and recordings key on
   * it), known before the SDK package is loaded; a test checks it against each package's model.
   */
  sdkProvider: string;
  /** Loads the provider's SDK package (on the first call, not at start-up) and makes the model. */
  load(settings: ProviderModelSettings): Promise<LanguageModelV4>;
}

const keyed = (apiKey: string, baseURL: string, defaultBaseURL: string): ProviderEnv => ({
  apiKey,
  apiKeyRequired: true,
  baseURL,
  defaultBaseURL,
});

/**
 * Every provider Arbor speaks, each through the AI SDK's own package. Base URL and key are always
 * passed explicitly: left undefined, the SDK providers read `process.env` themselves, which would
 * bypass the environment the registry was given.
 */
const PROVIDERS: Readonly<Record<ProviderName, ProviderSpec>> = {
  openai: {
    env: keyed("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    // The Responses API: OpenAI's current API, which keeps reasoning items across turns. Servers that
    // speak only Chat Completions are what openai-compatible is for.
    sdkProvider: "openai.responses",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/openai")).createOpenAI({ baseURL, apiKey, fetch }).responses(model),
  },
  anthropic: {
    env: keyed("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com/v1"),
    sdkProvider: "anthropic.messages",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/anthropic")).createAnthropic({ baseURL, apiKey, fetch }).languageModel(model),
  },
  google: {
    env: keyed("GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_BASE_URL", "https://generativelanguage.googleapis.com/v1beta"),
    sdkProvider: "google.generative-ai",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/google")).createGoogle({ baseURL, apiKey, fetch }).languageModel(model),
  },
  azure: {
    env: {
      apiKey: "AZURE_API_KEY",
      apiKeyRequired: true,
      baseURL: "AZURE_BASE_URL",
      defaultBaseURL: undefined,
      baseURLHint: "https://<resource>.openai.azure.com/openai",
    },
    // The model part of `azure/<name>` is the deployment name, as Azure addresses models.
    sdkProvider: "azure.responses",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/azure")).createAzure({ baseURL, apiKey, fetch }).responses(model),
  },
  bedrock: {
    // Either a Bedrock API key, or the usual AWS access keys (read from the same environment).
    env: {
      apiKey: "AWS_BEARER_TOKEN_BEDROCK",
      apiKeyRequired: false,
      baseURL: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
      defaultBaseURL: undefined,
      baseURLHint: "https://bedrock-runtime.<region>.amazonaws.com (or set AWS_REGION)",
    },
    sdkProvider: "amazon-bedrock",
    load: async (settings) =>
      (await import("@ai-sdk/amazon-bedrock")).createAmazonBedrock(bedrockSettings(settings)).languageModel(settings.model),
  },
  mistral: {
    env: keyed("MISTRAL_API_KEY", "MISTRAL_BASE_URL", "https://api.mistral.ai/v1"),
    sdkProvider: "mistral.chat",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/mistral")).createMistral({ baseURL, apiKey, fetch }).languageModel(model),
  },
  xai: {
    env: keyed("XAI_API_KEY", "XAI_BASE_URL", "https://api.x.ai/v1"),
    sdkProvider: "xai.responses",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/xai")).createXai({ baseURL, apiKey, fetch }).languageModel(model),
  },
  groq: {
    env: keyed("GROQ_API_KEY", "GROQ_BASE_URL", "https://api.groq.com/openai/v1"),
    sdkProvider: "groq.chat",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/groq")).createGroq({ baseURL, apiKey, fetch }).languageModel(model),
  },
  deepseek: {
    env: keyed("DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "https://api.deepseek.com"),
    sdkProvider: "deepseek.chat",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/deepseek")).createDeepSeek({ baseURL, apiKey, fetch }).languageModel(model),
  },
  // OpenRouter speaks Chat Completions; its usage report is on when asked for, like other compatible servers.
  openrouter: {
    env: keyed("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1"),
    sdkProvider: "openrouter.chat",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/openai-compatible"))
        .createOpenAICompatible({ name: "openrouter", baseURL, apiKey, includeUsage: true, fetch })
        .chatModel(model),
  },
  // ARBOR_BASE_URL reaches the registry as config.baseURL (with --base-url and arbor.json), not from the env directly.
  "openai-compatible": {
    env: {
      apiKey: "ARBOR_API_KEY",
      apiKeyRequired: false,
      baseURL: undefined,
      defaultBaseURL: undefined,
      baseURLHint: "http://localhost:11434/v1",
    },
    // includeUsage sends stream_options.include_usage: without it most servers report no tokens when streaming.
    sdkProvider: "openai-compatible.chat",
    load: async ({ model, baseURL, apiKey, fetch }) =>
      (await import("@ai-sdk/openai-compatible"))
        .createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, includeUsage: true, fetch })
        .chatModel(model),
  },
};

/**
 * Bedrock's client settings: a Bedrock API key, or the usual AWS access keys, from the injected
 * environment; the region from AWS_REGION or the endpoint. Shared by its language and embedding models.
 */
export function bedrockSettings({ baseURL, apiKey, fetch, env = {} }: ProviderModelSettings) {
  return {
    baseURL,
    fetch,
    region: env.AWS_REGION ?? regionOf(baseURL),
    ...(apiKey
      ? { apiKey }
      : {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }),
  };
}

/** `us-east-1` from `https://bedrock-runtime.us-east-1.amazonaws.com`; requests are signed for it. */
function regionOf(baseURL: string): string | undefined {
  return /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(baseURL)?.[1];
}

export function providerEnv(provider: ProviderName): ProviderEnv {
  return PROVIDERS[provider].env;
}

/** The environment variable holding a provider's API key, e.g. `OPENAI_API_KEY`. */
export function apiKeyVariable(provider: ProviderName): string {
  return PROVIDERS[provider].env.apiKey;
}

/**
 * Where a provider's requests go when its base URL variable is unset and it has no fixed default:
 * Bedrock's endpoint follows the region.
 */
export function derivedBaseURL(provider: ProviderName, env: Env): string | undefined {
  if (provider === "bedrock" && env.AWS_REGION) return `https://bedrock-runtime.${env.AWS_REGION}.amazonaws.com`;
  return undefined;
}

/**
 * The AI SDK model for a provider. Its package is loaded on the model's first call, so a command that
 * calls no model (listing sessions, serving the inspector before the first chat) never pays for
 * loading every provider's SDK.
 */
export function createProviderModel(settings: ProviderModelSettings): LanguageModelV4 {
  const spec = PROVIDERS[settings.provider];
  return lazyModel(spec.sdkProvider, settings.model, () => spec.load(settings));
}

/** Loads the provider's SDK package and makes its model now (tests compare it with the lazy one). */
export function loadProviderModel(settings: ProviderModelSettings): Promise<LanguageModelV4> {
  return PROVIDERS[settings.provider].load(settings);
}
