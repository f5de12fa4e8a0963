import { type ArborErrorCode, isArborError } from "@arbor/core";

/** Error codes the HTTP layer adds to core's ArborError codes. */
export type ServerErrorCode =
  | "invalid_json"
  | "unsupported_media_type"
  | "unauthorized"
  | "forbidden_origin"
  | "forbidden_host"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "permission_not_found"
  | "message_not_found"
  | "upgrade_required"
  | "instance_unavailable"
  | "internal_error";

export type ApiErrorCode = ArborErrorCode | ServerErrorCode;

/** The error body of every failed request: `{error: {code, message}}`, one shape so clients handle every error alike. */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string };
}

/** A failure the HTTP layer reports itself (bad JSON, auth, size, an unknown route or permission). */
export class ApiError extends Error {
  readonly code: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }
}

/**
 * The one mapping from error codes to HTTP statuses. Codes not listed are server-side failures
 * (a corrupt session, an I/O error) and answer 500.
 */
const STATUS: Partial<Record<ApiErrorCode, number>> = {
  invalid_id: 400,
  invalid_input: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  invalid_model: 400,
  invalid_tool_input: 400,
  unknown_entry_type: 400,
  unauthorized: 401,
  forbidden_origin: 403,
  forbidden_host: 403,
  // The token is valid but lacks the scope the operation needs; the message names it.
  scope_required: 403,
  not_found: 404,
  session_not_found: 404,
  entry_not_found: 404,
  goal_not_found: 404,
  parent_not_found: 404,
  blob_not_found: 404,
  permission_not_found: 404,
  plan_not_found: 404,
  approval_not_found: 404,
  ask_not_found: 404,
  token_not_found: 404,
  message_not_found: 404,
  mcp_server_not_found: 404,
  mcp_resource_not_found: 404,
  mcp_prompt_not_found: 404,
  method_not_allowed: 405,
  session_exists: 409,
  duplicate_entry: 409,
  session_busy: 409,
  // Steering a session no run drives: its state, not the request, is in the way.
  session_not_running: 409,
  // A plan answered already: the session, not the request, is in the way.
  plan_not_pending: 409,
  // A compaction with nothing to summarize: the session's state, not the request, is in the way.
  context_overflow: 409,
  // An unrevert with no revert at the leaf: the session's state is in the way.
  nothing_to_unrevert: 409,
  // The session's recorded changes name another workspace or an unrecorded state: its entries are in the way.
  revert_refused: 409,
  revert_conflict: 409,
  // A second answer to an ask: the ask, not the request, is in the way.
  ask_already_answered: 409,
  events_expired: 410,
  ask_expired: 410,
  payload_too_large: 413,
  entry_too_large: 413,
  unsupported_media_type: 415,
  upgrade_required: 426,
  // The summarizing model failed: an upstream failure, the session unchanged.
  compaction_failed: 502,
  summary_failed: 502,
  store_closed: 503,
  // A cluster instance that is shutting down (or cannot hear the others) starts no run: another one should.
  instance_unavailable: 503,
};

export function statusFor(code: ApiErrorCode): number {
  return STATUS[code] ?? 500;
}

/** An absolute file path (POSIX or Windows) in a message; not the `//host/x` or `:5432/db` of a URL. */
const ABSOLUTE_PATH = /(?<![\w.:/\\~-])(?:[A-Za-z]:[\\/]|\/)[^\s'"`<>|,;()]*/g;

const INTERNAL_MESSAGE = "Internal error: the server failed unexpectedly; its log has the details.";

/**
 * What a server-side failure may tell a client: its first line (never a stack) with every absolute
 * path cut to its last component, so a response does not map the server's disk.
 */
function redact(message: string): string {
  const firstLine = message.split("\n", 1)[0] ?? "";
  return firstLine.replace(ABSOLUTE_PATH, (path) => `…/${path.split(/[\\/]/).pop() ?? ""}`);
}

/**
 * Any thrown value as the code and message a client sees. Client errors (4xx) keep their message;
 * server errors (5xx) keep their code and a redacted message; anything that is not an Arbor or API
 * error is `internal_error` with a fixed message (its own may hold paths, data or a stack).
 */
export function toApiError(err: unknown): { status: number; body: ApiErrorBody } {
  if (err instanceof ApiError || isArborError(err)) {
    const status = statusFor(err.code);
    const message = status >= 500 ? redact(err.message) : err.message;
    return { status, body: { error: { code: err.code, message } } };
  }
  return { status: 500, body: { error: { code: "internal_error", message: INTERNAL_MESSAGE } } };
}

/** The message a client may see for `err` (see toApiError). */
export function safeErrorMessage(err: unknown): string {
  return toApiError(err).body.error.message;
}
