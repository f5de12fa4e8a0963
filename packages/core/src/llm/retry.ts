import { APICallError } from "@ai-sdk/provider";
import { isPermanent, providerErrorKind } from "./provider-errors.js";

/** Time as model calls and the loop see it: injectable so retry backoff is tested without waiting. */
export interface LoopClock {
  now(): number;
  /** Resolves after `ms`; rejects as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** First backoff in ms (default 1,000); doubles each retry. */
  initialDelayMs?: number;
  /** Longest wait between attempts, `retry-after` included (default 30,000). */
  maxDelayMs?: number;
  /** 0..1 share of the delay that is randomized (default 0.2). */
  jitter?: number;
  /**
   * Longest silence between two parts of a streamed response, in ms (default 60,000): a stream that
   * stalls longer is ended and its step retried like a dropped connection.
   */
  streamIdleTimeoutMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 4,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  jitter: 0.2,
  streamIdleTimeoutMs: 60_000,
};

/** What the loop needs to know about a provider failure. Pure. */
/** A failed model call about to be tried again: told as the wait begins, so a front end can say so. */
export interface RetryNotice {
  /** The retry about to happen, from 1. */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  failure: ProviderFailure;
}

export interface ProviderFailure {
  retryable: boolean;
  /** The wait the provider asked for, in ms (`retry-after-ms` or `retry-after`). */
  retryAfterMs: number | undefined;
  /** HTTP status when there was a response. */
  status: number | undefined;
  message: string;
  /** The provider's own error type or code, when its body names one. */
  type?: string | undefined;
  /** The provider's words alone, without the URL, for the message a user reads. */
  detail?: string;
  /** The address called, when known. */
  url?: string;
  /** The network error's code (`ECONNREFUSED`, …) when the call got no response. */
  code?: string;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_SOCKET"]);

function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Parses `retry-after-ms`, then `retry-after` as seconds or an HTTP date, relative to `now`. */
export function retryAfterMs(headers: Readonly<Record<string, string>> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers["retry-after-ms"];
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers["retry-after"];
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function classifyProviderError(err: unknown, now: number): ProviderFailure {
  if (APICallError.isInstance(err)) {
    const detail = providerMessage(err);
    const type = providerErrorType(err.data);
    const kind = providerErrorKind({ status: err.statusCode, type, detail });
    return {
      retryable: err.isRetryable && !isPermanent(kind),
      retryAfterMs: retryAfterMs(err.responseHeaders, now),
      status: err.statusCode,
      message: err.statusCode === undefined ? `${detail} (${err.url})` : `${err.statusCode} from ${err.url}: ${detail}`,
      type,
      // Without a response the address is the useful part: which server could not be reached.
      detail: err.statusCode === undefined ? `${detail} (${err.url})` : detail,
      url: err.url,
      ...(causeCode(err) !== undefined ? { code: causeCode(err) as string } : {}),
    };
  }
  const code = causeCode(err);
  // A provider's error event mid-stream arrives as its parsed body, not an Error.
  const type = providerErrorType(err);
  const message = err instanceof Error ? err.message : (providerErrorText(err) ?? String(err));
  if (code && NETWORK_CODES.has(code)) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      status: undefined,
      message: `${message} (${code})`,
      detail: `${message} (${code})`,
      code,
    };
  }
  return { retryable: false, retryAfterMs: undefined, status: undefined, message, type, detail: message };
}

/** The provider's own error text when the body carries one, else the SDK's message. */
function providerMessage(err: APICallError): string {
  return providerErrorText(err.data) ?? providerErrorText(parseBody(err.responseBody)) ?? err.message;
}

type ErrorBody = {
  error?: { message?: unknown; type?: unknown; code?: unknown } | string;
  type?: unknown;
  code?: unknown;
  message?: unknown;
};

function parseBody(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function providerErrorText(data: unknown): string | undefined {
  const body = data as ErrorBody | undefined;
  const inner = typeof body?.error === "object" ? body.error : undefined;
  const text = inner?.message ?? body?.message ?? (typeof body?.error === "string" ? body.error : undefined);
  return typeof text === "string" && text !== "" ? text : undefined;
}

/** `insufficient_quota`, `overloaded_error`, … from an OpenAI- or Anthropic-shaped error body. */
function providerErrorType(data: unknown): string | undefined {
  const body = data as ErrorBody | undefined;
  const inner = typeof body?.error === "object" ? body.error : undefined;
  for (const value of [inner?.code, inner?.type, body?.code, body?.type]) {
    if (typeof value === "string" && value !== "" && value !== "error") return value;
  }
  return undefined;
}

/**
 * The wait before retry number `attempt` (0-based): the provider's `retry-after` when given, else
 * exponential backoff with jitter; never above `maxDelayMs`. `random` is injected to keep this pure.
 */
export function retryDelay(attempt: number, failure: ProviderFailure, options: Required<RetryOptions>, random: number): number {
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, options.maxDelayMs);
  const base = Math.min(options.initialDelayMs * 2 ** attempt, options.maxDelayMs);
  const spread = base * options.jitter;
  return Math.max(0, Math.min(options.maxDelayMs, Math.round(base - spread + 2 * spread * random)));
}
