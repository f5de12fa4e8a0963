import type { EmbeddingModelV4, LanguageModelV4, ProviderV4, SharedV4ProviderOptions } from "@ai-sdk/provider";
import type { ThinkingLevel } from "../../model/entry.js";
import type { ModelInfo } from "../../model/model-info.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** The environment a provider reads: shown in missing-key errors and the CLI's help. */
export interface ProviderEnv {
  /** The variable holding the API key. */
  apiKey: string;
  /** False when calls may go out without that key: local servers, or a provider with other credentials. */
  apiKeyRequired: boolean;
  /**
   * The variable overriding the base URL. Undefined for a provider with no address of its own
   * (openai-compatible): its URL comes from --base-url, ARBOR_BASE_URL or `baseURL` in arbor.json.
   */
  baseURL: string | undefined;
  /** Where requests go when nothing overrides it; undefined when the user has to say. */
  defaultBaseURL: string | undefined;
  /** What to tell a user who has to give the base URL, e.g. an example value. */
  baseURLHint?: string;
}

/**
 * Credentials other than the one key variable (Bedrock also takes AWS access keys). Checked before any
 * call, so a user with neither hears about both.
 */
export interface OtherCredentials {
  /** What the key variable holds, e.g. "a Bedrock API key". */
  apiKeyIs: string;
  /** The variables that stand in for the key, as a user would set them. */
  instead: string;
  /** Whether `env` holds those other credentials. */
  present(env: Env): boolean;
}

/** Where one model's requests go and with which key: what a provider's factory is given. */
export interface ModelSettings {
  model: string;
  baseURL: string;
  apiKey: string | undefined;
  fetch?: typeof fetch | undefined;
  /** The injected environment, for providers whose credentials are more than one key (Bedrock). */
  env?: Env;
}

/** A thinking level that asks for something: "off" is the same `reasoning: "none"` for every provider. */
export type ThinkingRequest = Exclude<ThinkingLevel, "off">;

/** Shown by `arbor run --help` and the docs: what the provider is and a model to try. */
export interface ProviderHelp {
  /** The provider as a reader knows it, e.g. "OpenAI (Responses API)". */
  label: string;
  /** A model id in this provider's own naming, without the `provider/` prefix, e.g. "gpt-5". */
  exampleModel: string;
}

/**
 * Everything Arbor knows about one provider. The generic code (model refs, the registry, thinking,
 * cache breakpoints, the catalog, embeddings, the CLI's help) reads these and holds no table of its own.
 */
export interface ProviderDefinition<Name extends string = string> {
  /** The `provider` part of `provider/model`. */
  name: Name;
  help: ProviderHelp;
  env: ProviderEnv;
  /** Credentials that may stand in for the key variable. */
  otherCredentials?: OtherCredentials;
  /** Where requests go when no variable or config gives a base URL and there is no fixed default. */
  derivedBaseURL?(env: Env): string | undefined;
  /**
   * The `provider` string the AI SDK's model reports (cache marks, telemetry and recordings key on
   * it), known before the SDK package is loaded; a test checks it against each package's model.
   */
  sdkProvider: string;
  /** The key of `providerOptions` this provider's SDK package reads (its thinking and cache options go under it). */
  optionsKey: string;
  /**
   * Loads the provider's SDK package (on the first call, not at start-up) and makes the model. Base
   * URL and key are always passed explicitly: left undefined, the SDK providers read `process.env`
   * themselves, which would bypass the environment the registry was given.
   */
  load(settings: ModelSettings): Promise<LanguageModelV4>;
  /** Loads an embedding model the same way; absent when the provider's package has none. */
  loadEmbedding?(settings: ModelSettings): Promise<EmbeddingModelV4>;
  /**
   * Provider options for a thinking level beyond the AI SDK's own mapping of `reasoning` (asking to see
   * the reasoning, a budget in the provider's own option). Undefined when the SDK's mapping is enough.
   * Pure; keyed by `optionsKey` only.
   */
  thinking?(level: ThinkingRequest): SharedV4ProviderOptions | undefined;
  /**
   * The mark that makes this provider cache the prompt up to a message, for a model id; undefined
   * when the provider caches a stable prefix on its own. Pure; keyed by `optionsKey` only.
   */
  cacheMark?(model: string): SharedV4ProviderOptions | undefined;
  /** Limits and list prices of common models, keyed by model id (without the `provider/` prefix). */
  models?: Readonly<Record<string, ModelInfo>>;
}

/** Checks a definition's shape where it is written, keeping its name as a literal type. */
export function defineProvider<const Name extends string>(definition: ProviderDefinition<Name>): ProviderDefinition<Name> {
  return definition;
}

/** The environment of a provider with one key variable and one base URL variable with a fixed default. */
export function keyedEnv(apiKey: string, baseURL: string, defaultBaseURL: string): ProviderEnv {
  return { apiKey, apiKeyRequired: true, baseURL, defaultBaseURL };
}

/** The settings every AI SDK provider factory (createOpenAI, createGroq, …) takes. */
export interface SdkFactorySettings {
  baseURL: string;
  apiKey: string | undefined;
  fetch?: typeof fetch | undefined;
}

/** An AI SDK provider factory, as a package exports it: the models come from the standard provider interface. */
export type SdkFactory = (settings: SdkFactorySettings) => Pick<ProviderV4, "languageModel" | "embeddingModel">;

/**
 * The SDK half of a definition in the common case, from the package's factory (imported on the first
 * call): its `languageModel` makes the model and, with `embeddings`, its `embeddingModel` the embedding
 * model. The options key is the first part of `sdkProvider`, the name the AI SDK packages read their
 * provider options under.
 */
export function aiSdk(
  sdkProvider: string,
  importFactory: () => Promise<SdkFactory>,
  { embeddings = false }: { embeddings?: boolean } = {},
): Pick<ProviderDefinition, "sdkProvider" | "optionsKey" | "load" | "loadEmbedding"> {
  const client = async ({ baseURL, apiKey, fetch }: ModelSettings) => (await importFactory())({ baseURL, apiKey, fetch });
  return {
    sdkProvider,
    optionsKey: sdkProvider.split(".")[0] ?? sdkProvider,
    load: async (settings) => (await client(settings)).languageModel(settings.model),
    ...(embeddings
      ? { loadEmbedding: async (settings: ModelSettings) => (await client(settings)).embeddingModel(settings.model) }
      : {}),
  };
}
