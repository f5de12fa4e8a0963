import type { ProviderName } from "../../src/llm/model-ref.js";
import type { ProviderModelSettings } from "../../src/llm/providers.js";

/** A base URL nothing listens on: a provider model made with it can be inspected but never answers. */
export const OFFLINE_BASE_URL = "http://127.0.0.1:9/v1";

/** A fetch that fails the test: making or inspecting a model must never touch the network. */
export const noFetch: typeof fetch = () => {
  throw new Error("a provider model made a request");
};

/**
 * Settings that let any provider's factory build its model with no network: a key, an address nothing
 * listens on, a fetch that fails, and an AWS region for the providers whose requests are signed for one.
 */
export function offlineSettings(provider: ProviderName, model = "some-model"): ProviderModelSettings {
  return { provider, model, baseURL: OFFLINE_BASE_URL, apiKey: "key", fetch: noFetch, env: { AWS_REGION: "us-east-1" } };
}
