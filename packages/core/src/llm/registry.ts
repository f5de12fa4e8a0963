import { createHash } from "node:crypto";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config, PoolEntry } from "../config/schema.js";
import { ArborError } from "../errors.js";
import { type Embedder, modelEmbedder } from "../knowledge/embedder.js";
import { modelInfo } from "./catalog.js";
import { EMBEDDING_PROVIDERS, embeddingLoader } from "./embedding-providers.js";
import { formatModelRef, type ModelRef, parseModelRef } from "./model-ref.js";
import { createProviderModel, providerDefinition } from "./providers.js";
import type { ModelResolver, ModelScenario, ResolvedModel } from "./resolved-model.js";

// Re-exported: the internal entry exports this module, and callers name a provider's key variable with these.
export { apiKeyVariable, type ProviderEnv, providerEnv } from "./providers.js";

export interface ModelRegistryOptions {
  config: Config;
  /** Where keys and provider base URLs are read, at each resolve; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Used by every provider for its requests (tests, proxies). */
  fetch?: typeof fetch;
}

/** A ModelResolver over a config and an environment, caching model instances per connection. */
export interface ModelRegistry extends ModelResolver {}

/** Where one model's requests go and with which key. */
interface Connection {
  baseURL: string;
  keyVariable: string;
  key: string | undefined;
}

export function createModelRegistry(options: ModelRegistryOptions): ModelRegistry {
  const { config } = options;
  const env = options.env ?? process.env;
  // Keyed by fingerprint(): one instance per connection, so callers may compare models by identity.
  const models = new Map<string, LanguageModelV4>();

  function build(text: string, entry: PoolEntry | undefined, scenario: ModelScenario | undefined): ResolvedModel {
    const ref = parseModelRef(text);
    const name = formatModelRef(ref);
    const connection = connect(ref, name, entry, scenario, config, env);
    const key = fingerprint(ref, connection);
    let model = models.get(key);
    if (model === undefined) {
      model = createProviderModel({ ...ref, baseURL: connection.baseURL, apiKey: connection.key, fetch: options.fetch, env });
      models.set(key, model);
    }
    return { ref: name, model, info: modelInfo(name, config.models) };
  }

  return {
    resolve: (ref) => build(ref, undefined, undefined),
    forScenario(scenario) {
      // hasOwn: a scenario named like an Object.prototype member ("constructor") must not find one.
      const entry = Object.hasOwn(config.pool, scenario) ? config.pool[scenario] : undefined;
      if (entry !== undefined) return build(entry.model, entry, scenario);
      if (scenario === "llm" && config.model !== undefined) return build(config.model, undefined, undefined);
      return undefined;
    },
  };
}

/**
 * The knowledge base's embedder from `knowledge.embeddingModel`, or undefined when none is set. Its
 * base URL and key follow the language models' rules; they are read at the first embedding, so a
 * runtime whose base is never searched does not need them.
 */
export function createEmbedder(options: ModelRegistryOptions): Embedder | undefined {
  const text = options.config.knowledge.embeddingModel;
  if (text === undefined) return undefined;
  const env = options.env ?? process.env;
  const ref = parseModelRef(text);
  const name = formatModelRef(ref);
  const load = embeddingLoader(ref.provider);
  if (load === undefined) {
    throw new ArborError(
      "invalid_config",
      `knowledge.embeddingModel: ${ref.provider} has no embedding models in Arbor; use one of ${EMBEDDING_PROVIDERS.join(", ")}.`,
      { model: name },
    );
  }
  return modelEmbedder(name, async () => {
    const connection = connect(ref, name, undefined, undefined, options.config, env);
    return load({ ...ref, baseURL: connection.baseURL, apiKey: connection.key, fetch: options.fetch, env });
  });
}

/** Base URL and key for a model, from its pool entry, then the environment, then the provider's default. */
function connect(
  ref: ModelRef,
  name: string,
  entry: PoolEntry | undefined,
  scenario: ModelScenario | undefined,
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): Connection {
  const definition = providerDefinition(ref.provider);
  const spec = definition.env;
  const where = scenario === undefined ? name : `${name} (pool.${scenario})`;

  let baseURL = entry?.baseURL;
  // A provider with no base URL variable of its own (openai-compatible) is pointed by --base-url,
  // ARBOR_BASE_URL or arbor.json, all of which arrive as config.baseURL.
  if (baseURL === undefined && spec.baseURL === undefined) baseURL = config.baseURL;
  if (baseURL === undefined && spec.baseURL !== undefined) {
    const value = nonBlank(env[spec.baseURL]);
    if (value !== undefined && !isHttpURL(value)) {
      throw new ArborError(
        "invalid_config",
        `${spec.baseURL} is not an http(s) URL: ${JSON.stringify(value)}. Fix it or unset it to use ${spec.defaultBaseURL}.`,
        { variable: spec.baseURL },
      );
    }
    baseURL = value;
  }
  baseURL ??= spec.defaultBaseURL ?? definition.derivedBaseURL?.(env);
  if (baseURL === undefined) {
    const poolHint = scenario === undefined ? "" : `set pool.${scenario}.baseURL, or `;
    const how =
      spec.baseURL === undefined
        ? "pass --base-url or set ARBOR_BASE_URL to the server's OpenAI-compatible endpoint"
        : `set ${spec.baseURL}`;
    throw new ArborError(
      "invalid_config",
      `No base URL for ${where}: ${poolHint}${how}, e.g. ${spec.baseURLHint ?? "https://…"}.`,
      { model: name },
    );
  }

  // A pool entry naming its own variable means that server wants a key, whatever the provider.
  const keyVariable = entry?.apiKeyEnv ?? spec.apiKey;
  const key = nonBlank(env[keyVariable]);
  const other = definition.otherCredentials;
  if (other !== undefined && key === undefined && !other.present(env)) {
    throw new ArborError(
      "missing_api_key",
      `No credentials for ${where}: set ${keyVariable} (${other.apiKeyIs}), or ${other.instead}.`,
      { model: name, variable: keyVariable },
    );
  }
  if (key === undefined && (spec.apiKeyRequired || entry?.apiKeyEnv !== undefined)) {
    throw new ArborError("missing_api_key", `No API key for ${where}: set ${keyVariable}.`, {
      model: name,
      variable: keyVariable,
    });
  }
  return { baseURL, keyVariable, key };
}

/** The cache key: everything that makes two instances differ, with the key only as a digest so the map is safe to log. */
function fingerprint(ref: ModelRef, connection: Connection): string {
  const digest = connection.key === undefined ? "" : createHash("sha256").update(connection.key).digest("hex").slice(0, 16);
  return JSON.stringify([ref.provider, ref.model, connection.baseURL, connection.keyVariable, digest]);
}

/** Trimmed; a variable set to blanks counts as unset (`KEY=` in a .env file, a key pasted with its newline). */
function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

function isHttpURL(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}
