/**
 * Every failure Arbor reports to a caller is an ArborError: a stable `code` to branch on and a
 * message written for the person who has to fix the input.
 */
export type ArborErrorCode =
  | "invalid_id"
  | "invalid_input"
  | "invalid_store_spec"
  | "invalid_cursor"
  | "session_not_found"
  | "session_exists"
  | "entry_not_found"
  // A trace message (a user message, or an answer with its steps) not on the session's active path.
  | "message_not_found"
  | "goal_not_found"
  | "parent_not_found"
  | "duplicate_entry"
  | "entry_too_large"
  | "corrupt_session"
  | "unknown_entry_type"
  | "unsupported_version"
  | "store_closed"
  | "io_error"
  | "invalid_model"
  | "invalid_config"
  | "missing_api_key"
  // Tools and permissions: the loop branches on these (a rejection may stop the run, an abort is
  // recorded as interrupted), so each gets its own code rather than one generic tool failure.
  | "unknown_tool"
  | "invalid_tool_input"
  | "tool_failed"
  | "permission_denied"
  | "permission_rejected"
  // The security gateway refused a tool call (a dangerous command); the model is told which rule and why.
  | "security_blocked"
  | "aborted"
  | "blob_not_found"
  // The loop: a second prompt to a running session when the runtime rejects instead of queueing.
  | "session_busy"
  // Resuming: only a session whose run was cut off by its process dying can be taken up again.
  | "session_not_interrupted"
  // Steering: a message for a running agent sent to a session no run drives.
  | "session_not_running"
  // Context management: the summarizer failed, or the context cannot be made to fit the model.
  | "compaction_failed"
  | "context_overflow"
  // The `summary` helper (a session summary asked for) failed: the session is unchanged.
  | "summary_failed"
  // Record and replay: a cassette file that is not one, and a replay that left its recording.
  | "invalid_cassette"
  | "cassette_mismatch"
  | "cassette_exhausted"
  // A run middleware threw: reported to the runtime's handler, never failing the run.
  | "middleware_failed"
  // Plan approval: no such plan waits, or it was answered already.
  | "plan_not_found"
  | "plan_not_pending"
  // MCP: a configured server could not be reached (did not start, crashed, closed) or did not answer in time.
  | "mcp_unavailable"
  | "mcp_timeout"
  // MCP resources and prompts: no such server configured, or the server has no such resource or prompt.
  | "mcp_server_not_found"
  | "mcp_resource_not_found"
  | "mcp_prompt_not_found"
  // A2A: a configured remote agent could not be reached, or its agent card could not be read or used.
  | "remote_agent_unavailable"
  // MCP OAuth: a server wants its user to log in (`arbor mcp login <server>`), or the login itself failed.
  | "mcp_login_required"
  | "mcp_login_failed"
  // A login asked for during a run (an `mcp_login` ask) was declined, cancelled or expired.
  | "mcp_login_declined"
  // A run stream resumed from an event its session's log no longer holds (or never held).
  | "events_expired"
  // File snapshots: the private history could not be written or read (git missing, say), and an unrevert with no revert to undo;
  // a revert naming another workspace or a state the history never recorded (an imported session's entries, say).
  | "snapshot_failed"
  | "nothing_to_unrevert"
  | "revert_refused"
  | "revert_conflict"
  // Approvals: a revoke naming no approval in force in the scopes asked about.
  | "approval_not_found"
  // Asks (permission asks kept in the store): none with that id, answered once already, or past its expiry.
  | "ask_not_found"
  | "ask_already_answered"
  | "ask_expired"
  // Principals: a token without the scope an operation needs, and a token id no record has.
  | "scope_required"
  | "token_not_found";

export class ArborError extends Error {
  readonly code: ArborErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ArborErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ArborError";
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ArborErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isArborError(value: unknown, code?: ArborErrorCode): value is ArborError {
  return value instanceof ArborError && (code === undefined || value.code === code);
}
