import { isProviderName, type ProviderName } from "./model-ref.js";
import { providerEnv } from "./providers.js";

/** What went wrong with a model call, in the terms a user acts on. */
export type ProviderErrorKind =
  | "auth"
  | "quota"
  | "rate_limit"
  | "overloaded"
  | "model_not_found"
  | "bad_request"
  | "server"
  | "network"
  | "other";

export interface ProviderErrorFacts {
  status: number | undefined;
  /** The provider's own error type or code from the body (`insufficient_quota`, `overloaded_error`, …). */
  type: string | undefined;
  /** The provider's own words, or the transport's. */
  detail: string;
}

const TYPES: ReadonlyArray<[RegExp, ProviderErrorKind]> = [
  [/quota|billing|credit|insufficient_(funds|balance)/i, "quota"],
  [/auth|api[_ ]?key|permission_denied|unauthori[sz]ed/i, "auth"],
  [/overload/i, "overloaded"],
  [/rate[_ ]?limit/i, "rate_limit"],
  [/model_not_found|not_found/i, "model_not_found"],
];

/** Sorts a failure by the provider's error type first (it is more precise than the status), then by status. Pure. */
export function providerErrorKind(facts: ProviderErrorFacts): ProviderErrorKind {
  const words = `${facts.type ?? ""} ${facts.status === undefined ? facts.detail : ""}`;
  for (const [pattern, kind] of TYPES) if (pattern.test(facts.type ?? "")) return kind;
  switch (facts.status) {
    case undefined:
      return /ECONN|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|fetch failed|socket/i.test(words) ? "network" : "other";
    case 401:
    case 403:
      return "auth";
    case 402:
      return "quota";
    case 404:
      return "model_not_found";
    case 429:
      return /quota|billing/i.test(facts.detail) ? "quota" : "rate_limit";
    case 503:
    case 529:
      return "overloaded";
    default:
      return facts.status >= 500 ? "server" : facts.status >= 400 ? "bad_request" : "other";
  }
}

/** A quota or a rejected key does not fix itself: retrying only delays the message. */
export function isPermanent(kind: ProviderErrorKind): boolean {
  return kind === "quota" || kind === "auth" || kind === "model_not_found" || kind === "bad_request";
}

function providerOf(ref: string): ProviderName | undefined {
  const name = ref.slice(0, ref.indexOf("/"));
  return isProviderName(name) ? name : undefined;
}

/**
 * One sentence for the user: the model, what went wrong in the provider's words, and what to do.
 * `ref` is the `provider/model` the run used. Pure.
 */
export function explainProviderError(facts: ProviderErrorFacts, ref: string): string {
  const provider = providerOf(ref);
  const env = provider ? providerEnv(provider) : undefined;
  const status = facts.status === undefined ? "" : ` (${facts.status})`;
  const said = `${facts.detail}${status}`;
  switch (providerErrorKind(facts)) {
    case "auth":
      return `${ref}: the provider refused the API key: ${said}. Check ${env?.apiKey ?? "the provider's API key"}.`;
    case "quota":
      return `${ref}: the account is out of quota or credit: ${said}. Add credit or raise the limit in the provider's billing settings, or choose another model with --model.`;
    case "rate_limit":
      return `${ref}: rate limited: ${said}. Wait a minute and try again, or run fewer sessions at once.`;
    case "overloaded":
      return `${ref}: the provider is overloaded: ${said}. Try again shortly, or choose another model with --model.`;
    case "model_not_found":
      return `${ref}: the provider does not know this model: ${said}. Check the model name, or choose another with --model.`;
    case "bad_request":
      return `${ref}: the provider refused the request: ${said}.`;
    case "server":
      return `${ref}: the provider failed: ${said}. Try again shortly.`;
    case "network":
      return `${ref}: could not reach the provider: ${said}. Check the network${env?.baseURL ? ` and ${env.baseURL}` : " and the base URL"}.`;
    case "other":
      return `${ref}: ${said}.`;
  }
}
