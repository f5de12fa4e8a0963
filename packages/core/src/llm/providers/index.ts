import { anthropic } from "./anthropic.js";
import { azure } from "./azure.js";
import { bedrock } from "./bedrock.js";
import { deepseek } from "./deepseek.js";
import { google } from "./google.js";
import { groq } from "./groq.js";
import { mistral } from "./mistral.js";
import { openai } from "./openai.js";
import { openaiCompatible } from "./openai-compatible.js";
import { openrouter } from "./openrouter.js";
import { xai } from "./xai.js";

/**
 * Every provider Arbor speaks, one line each, in the order help and errors list them. Adding a
 * provider is its file in this folder and its line here (see "Adding a provider" in the README).
 */
export const PROVIDER_DEFINITIONS = [
  openai,
  anthropic,
  google,
  azure,
  bedrock,
  mistral,
  xai,
  groq,
  deepseek,
  openrouter,
  openaiCompatible,
] as const;

export type ProviderName = (typeof PROVIDER_DEFINITIONS)[number]["name"];

export type { ProviderDefinition, ProviderEnv } from "./definition.js";
