import type { LanguageModelV4 } from "@ai-sdk/provider";
import { ArborError } from "../errors.js";
import { lazyModel } from "./lazy-model.js";
import type { ProviderName } from "./model-ref.js";
import type { ModelSettings, ProviderDefinition, ProviderEnv } from "./providers/definition.js";
import { PROVIDER_DEFINITIONS } from "./providers/index.js";

export type { ProviderEnv };

export interface ProviderModelSettings extends ModelSettings {
  provider: ProviderName;
}

/**
 * The registered definition of a provider. Every ProviderName has one; a name that only claims to be
 * one (read back from storage, cast by a caller) is refused like any unknown provider.
 */
export function providerDefinition(provider: ProviderName): ProviderDefinition<ProviderName> {
  const definition = PROVIDER_DEFINITIONS.find((candidate) => candidate.name === provider);
  if (definition === undefined) {
    throw new ArborError(
      "invalid_model",
      `Unknown provider ${JSON.stringify(provider)}: use one of ${PROVIDER_DEFINITIONS.map((d) => d.name).join(", ")}.`,
    );
  }
  return definition;
}

/**
 * The definition whose AI SDK package reports `sdkProvider`, for models given as instances: matched
 * on the part before the first dot, so `anthropic.messages` and any other Anthropic API both find Anthropic.
 */
export function definitionForSdkProvider(sdkProvider: string): ProviderDefinition<ProviderName> | undefined {
  // Asked before every model call: the family is compared in place, no part strings made.
  const length = familyLength(sdkProvider);
  return PROVIDER_DEFINITIONS.find((definition) => sameStart(definition.sdkProvider, sdkProvider, length));
}

/** The length of a provider string's part before its first dot (all of it without one). */
function familyLength(name: string): number {
  const dot = name.indexOf(".");
  return dot < 0 ? name.length : dot;
}

/** Whether `name`'s family is `other`'s first `length` characters. */
function sameStart(name: string, other: string, length: number): boolean {
  if (familyLength(name) !== length) return false;
  for (let i = 0; i < length; i++) if (name.charCodeAt(i) !== other.charCodeAt(i)) return false;
  return true;
}

export function providerEnv(provider: ProviderName): ProviderEnv {
  return providerDefinition(provider).env;
}

/** The environment variable holding a provider's API key, e.g. `OPENAI_API_KEY`. */
export function apiKeyVariable(provider: ProviderName): string {
  return providerDefinition(provider).env.apiKey;
}

/**
 * The AI SDK model for a provider. Its package is loaded on the model's first call, so a command that
 * calls no model (listing sessions, serving the inspector before the first chat) never pays for
 * loading every provider's SDK.
 */
export function createProviderModel(settings: ProviderModelSettings): LanguageModelV4 {
  const definition = providerDefinition(settings.provider);
  return lazyModel(definition.sdkProvider, settings.model, () => definition.load(settings));
}

/** Loads the provider's SDK package and makes its model now (tests compare it with the lazy one). */
export function loadProviderModel(settings: ProviderModelSettings): Promise<LanguageModelV4> {
  return providerDefinition(settings.provider).load(settings);
}
