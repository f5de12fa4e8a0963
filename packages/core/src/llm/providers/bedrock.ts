import { defineProvider, type Env, type ModelSettings } from "./definition.js";

export const bedrock = defineProvider({
  name: "bedrock",
  help: { label: "Amazon Bedrock", exampleModel: "anthropic.claude-sonnet-4-5-20250929-v1:0" },
  // Either a Bedrock API key, or the usual AWS access keys (read from the same environment).
  env: {
    apiKey: "AWS_BEARER_TOKEN_BEDROCK",
    apiKeyRequired: false,
    baseURL: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
    defaultBaseURL: undefined,
    baseURLHint: "https://bedrock-runtime.<region>.amazonaws.com (or set AWS_REGION)",
  },
  otherCredentials: {
    apiKeyIs: "a Bedrock API key",
    instead: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    present: (env) => nonBlank(env.AWS_ACCESS_KEY_ID),
  },
  // The endpoint follows the region.
  derivedBaseURL: (env) => (env.AWS_REGION ? `https://bedrock-runtime.${env.AWS_REGION}.amazonaws.com` : undefined),
  sdkProvider: "amazon-bedrock",
  optionsKey: "bedrock",
  load: async (settings) =>
    (await import("@ai-sdk/amazon-bedrock")).createAmazonBedrock(bedrockSettings(settings)).languageModel(settings.model),
  loadEmbedding: async (settings) =>
    (await import("@ai-sdk/amazon-bedrock")).createAmazonBedrock(bedrockSettings(settings)).embeddingModel(settings.model),
  // A token budget goes as Bedrock's own `reasoningConfig.budgetTokens`; a level is the SDK's mapping.
  thinking: (level) =>
    typeof level === "number" ? { bedrock: { reasoningConfig: { type: "enabled", budgetTokens: level } } } : undefined,
  // Anthropic models on Bedrock cache only up to marked cache points; Bedrock's other models take none.
  cacheMark: (model) => (model.includes("anthropic.") ? { bedrock: { cachePoint: { type: "default" } } } : undefined),
});

/**
 * Bedrock's client settings: a Bedrock API key, or the usual AWS access keys, from the injected
 * environment; the region from AWS_REGION or the endpoint. Shared by its language and embedding models.
 */
function bedrockSettings({ baseURL, apiKey, fetch, env = {} }: ModelSettings) {
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

/** A variable set to blanks counts as unset, as the registry reads every variable. */
function nonBlank(value: Env[string]): boolean {
  return value !== undefined && value.trim() !== "";
}
