import { settings } from "../lib/settings.js";

/** A failed API call, with the server's `{error: {code, message}}` when it sent one. */
export class ApiCallError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiCallError";
    this.status = status;
    this.code = code;
  }
}

export interface CallInit {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Headers every API call carries: the bearer token when the user gave one. */
export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const headers = { ...extra };
  if (settings.token) headers.Authorization = `Bearer ${settings.token}`;
  return headers;
}

async function errorFrom(res: Response): Promise<ApiCallError> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new ApiCallError(res.status, body.error.code ?? "error", body.error.message);
  } catch {
    // Not JSON: fall through to the status line.
  }
  return new ApiCallError(res.status, "http_error", `${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ""}`);
}

/** A raw API response; throws ApiCallError on a non-2xx status. */
export async function apiResponse(path: string, init: CallInit = {}): Promise<Response> {
  const headers = authHeaders(init.headers);
  if (init.json !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers,
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  if (!res.ok) throw await errorFrom(res);
  return res;
}

/** A JSON API call; `parse` checks the payload at the boundary. 204 yields undefined. */
export async function api<T>(path: string, parse: (value: unknown) => T, init: CallInit = {}): Promise<T> {
  const res = await apiResponse(path, init);
  if (res.status === 204) return parse(undefined);
  return parse(await res.json());
}

/** The WebSocket URL of an API path on this origin, with the token as `access_token` (browsers cannot set headers on a socket). */
export function socketUrl(path: string): string {
  const url = new URL(path, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (settings.token) url.searchParams.set("access_token", settings.token);
  return url.toString();
}
