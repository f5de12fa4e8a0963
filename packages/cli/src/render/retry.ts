import type { RetryNotice } from "@arbor/core/llm";
import { oneLine, truncate } from "./text.js";

/** Network failures as a person would say them, by the code Node gives them. */
const NETWORK: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection dropped",
  UND_ERR_SOCKET: "connection dropped",
  EPIPE: "connection dropped",
  ETIMEDOUT: "timed out",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
};

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${Math.round(ms / 1000)} s`;
}

/** Where the call went, without the path the SDK adds (`/chat/completions`): the part a user configured. */
function serverOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  return url.replace(/\/(chat\/completions|responses|messages|completions)(\?.*)?$/, "");
}

/** What went wrong, and what to check, in words: `connection refused at http://…; check --base-url …`. */
export function describeFailure(failure: RetryNotice["failure"]): string {
  const server = serverOf(failure.url);
  const at = server === undefined ? "" : ` at ${server}`;
  const network = failure.code === undefined ? undefined : NETWORK[failure.code];
  if (network !== undefined) return `${network}${at}; check --base-url or that the server is up`;
  if (failure.status === 429) return `rate limited (429)${at}; waiting as the provider asks`;
  if (failure.status !== undefined && failure.status >= 500) {
    return `the provider answered ${failure.status}${at}: ${truncate(oneLine(failure.detail ?? failure.message), 120)}`;
  }
  return truncate(oneLine(failure.detail ?? failure.message), 160);
}

/** The stderr line for a retry as it begins: `retrying 2/4 in 4 s: connection refused at http://…; check …`. */
export function retryLine(notice: RetryNotice): string {
  return `retrying ${notice.attempt}/${notice.maxRetries} in ${seconds(notice.delayMs)}: ${describeFailure(notice.failure)}`;
}
