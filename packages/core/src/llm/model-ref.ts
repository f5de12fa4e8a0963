import { ArborError } from "../errors.js";
import { PROVIDER_DEFINITIONS, type ProviderName } from "./providers/index.js";

export type { ProviderName };

/** The names of every provider, in the registered order. */
export const PROVIDERS: readonly ProviderName[] = PROVIDER_DEFINITIONS.map((definition) => definition.name);

export interface ModelRef {
  provider: ProviderName;
  model: string;
}

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** Parses `provider/model` (the model part may itself contain slashes, e.g. `openai-compatible/meta/llama3`). */
export function parseModelRef(value: string): ModelRef {
  const text = typeof value === "string" ? value.trim() : "";
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) {
    throw new ArborError(
      "invalid_model",
      `Model ${JSON.stringify(value)} is not of the form provider/model, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5 or openai-compatible/llama3.`,
    );
  }
  const provider = text.slice(0, slash);
  if (!isProviderName(provider)) {
    throw new ArborError(
      "invalid_model",
      `Unknown provider ${JSON.stringify(provider)} in ${JSON.stringify(value)}: use one of ${PROVIDERS.join(", ")}.`,
    );
  }
  return { provider, model: text.slice(slash + 1) };
}

export function formatModelRef(ref: ModelRef): string {
  return `${ref.provider}/${ref.model}`;
}
