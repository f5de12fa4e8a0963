import type { ArborError, ArborErrorCode } from "@arbor/core";
import type { Io } from "./io.js";

/** The command line itself was wrong (unknown command or flag, missing operand). Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The store could not be opened or reached (server down, bad credentials). Exit code 1. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

/**
 * An ArborError, told by its shape rather than by `instanceof`: this module is on every command's
 * startup path (`--version`, `--help`), which must not load `@arbor/core` (its schemas alone cost more
 * than the whole of such a command should).
 */
function isArborError(err: unknown): err is ArborError {
  return err instanceof Error && err.name === "ArborError" && typeof (err as { code?: unknown }).code === "string";
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** A run stopped on a permission or plan nobody could answer (no terminal, no --yes): answer it, then continue. */
export const EXIT_NEEDS_ANSWER = 3;
/** A run stopped by Ctrl-C: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/**
 * Codes that mean the input was wrong (the id, the spec, the file, the model, the config): the user
 * can fix them. The one list for thrown errors and for runs that end in an error alike.
 */
const INPUT_CODES: ReadonlySet<string> = new Set<ArborErrorCode>([
  "invalid_id",
  "invalid_input",
  "invalid_store_spec",
  "invalid_cursor",
  "session_not_found",
  "session_exists",
  "entry_not_found",
  "approval_not_found",
  "parent_not_found",
  "duplicate_entry",
  "entry_too_large",
  "unknown_entry_type",
  "unsupported_version",
  "invalid_model",
  "invalid_config",
  "missing_api_key",
  "invalid_cassette",
  "session_not_interrupted",
  "plan_not_found",
  "plan_not_pending",
  "token_not_found",
  "ask_not_found",
  "ask_already_answered",
  "ask_expired",
  // A revert of a path outside the workspace, or of changes the session never recorded: what was asked for.
  "revert_refused",
  // An MCP server, resource or prompt named in the prompt that is not there (the message names the nearest).
  "mcp_server_not_found",
  "mcp_resource_not_found",
  "mcp_prompt_not_found",
]);

/** Whether an error code (an ArborError's, or a run result's) is the input's fault: exit 2. */
export function isInputErrorCode(code: string | undefined): boolean {
  return code !== undefined && INPUT_CODES.has(code);
}

/**
 * The exit code of a finished run, so scripts can tell failures apart: 0 done, 2 bad input, 3 stopped
 * on a question nobody could answer, 1 any other error, 130 aborted.
 */
export function exitCodeForRun(run: { status: "done" | "error" | "aborted"; error?: { code: string } | undefined }): number {
  if (run.status === "done") return EXIT_OK;
  if (run.error?.code === "needs_answer") return EXIT_NEEDS_ANSWER;
  if (run.status === "aborted" || run.error?.code === "aborted") return EXIT_INTERRUPTED;
  return isInputErrorCode(run.error?.code) ? EXIT_USAGE : EXIT_FAILURE;
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT_USAGE;
  if (isArborError(err) && INPUT_CODES.has(err.code)) return EXIT_USAGE;
  return EXIT_FAILURE;
}

/** What to do next, for the errors whose core message cannot know the command line. */
export function hintFor(code: string, storeLabel: string | undefined): string | undefined {
  switch (code) {
    case "session_not_found":
      return storeLabel
        ? `Looked in the ${storeLabel}; run 'arbor sessions list' with the same --store to see its sessions.`
        : "Run 'arbor sessions list' with the same --store to see its sessions.";
    case "session_exists":
      return "Add --new-id to import it under a fresh id, or remove the existing one with 'arbor sessions rm <id>'.";
    case "invalid_cursor":
      return "Pass a --cursor printed by 'arbor sessions list' for the same store.";
    default:
      return undefined;
  }
}

function errorCode(err: unknown): string {
  if (isArborError(err)) return err.code;
  if (err instanceof UsageError) return "usage";
  if (err instanceof StoreUnavailableError) return "store_unavailable";
  return "internal_error";
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/**
 * Reports a failure: one line on stderr (`error: …`), and with `--json` also
 * `{"error":{"code","message"}}` on stdout. A stack trace only for unexpected failures and only
 * with ARBOR_DEBUG set.
 */
export function reportError(io: Io, err: unknown, opts: { json: boolean; storeLabel?: string | undefined }): number {
  const message = oneLine(err instanceof Error ? err.message : String(err)) || "unknown error";
  const hint = isArborError(err) ? hintFor(err.code, opts.storeLabel) : undefined;
  if (opts.json) io.stdout.write(`${JSON.stringify({ error: { code: errorCode(err), message } })}\n`);
  const code = exitCodeFor(err);
  const unexpected = code === EXIT_FAILURE && !(err instanceof StoreUnavailableError) && !isArborError(err);
  const debug = Boolean(io.env.ARBOR_DEBUG) && err instanceof Error && err.stack !== undefined;
  const suffix = unexpected && !debug ? " (set ARBOR_DEBUG=1 to see where it failed)" : "";
  io.stderr.write(`error: ${hint ? `${message} ${hint}` : message}${suffix}\n`);
  if (unexpected && debug) io.stderr.write(`${(err as Error).stack}\n`);
  return code;
}
