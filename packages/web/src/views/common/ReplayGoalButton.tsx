import type { Entry } from "@arbor/core";
import { useState } from "react";
import { prettyJson } from "../../lib/format.js";
import { runs, useRun } from "../../lib/runs.js";
import { isActive } from "../chat/run-state.js";
import { ErrorAlert } from "./ErrorAlert.js";

interface Props {
  sessionId: string;
  /** The assistant message that made the call. */
  messageId: string;
  callId: string;
  /** The call's arguments as JSON text, the editor's starting point. */
  input: string;
  /** Called once the replay's run has started (the tree moves to the chat to follow it). */
  onStarted?: () => void;
}

/** The editor's text as the goal call's new arguments, or why it cannot be. */
function parseArguments(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `Not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: 'The arguments must be a JSON object, such as {"add": "Test"}.' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * "Edit & replay" on a past goal call: an editor of the call's arguments that sends
 * `PATCH /api/traces/:id/replay` (a new branch before the message, the call redone, the run going on),
 * streamed like a run started from the chat. The server checks the arguments against the goal tool;
 * its refusal ends the run with an error, which shows here.
 */
export function ReplayGoalButton({ sessionId, messageId, callId, input, onStarted }: Props) {
  const [draft, setDraft] = useState<string | undefined>();
  const [invalid, setInvalid] = useState<string | undefined>();
  const [sent, setSent] = useState(false);
  const run = useRun(sessionId);
  const busy = isActive(run);
  const failed = sent && run?.status === "error" ? (run.error?.message ?? "The replay failed.") : undefined;

  if (draft === undefined) {
    return (
      <span className="replay-goal">
        <button
          type="button"
          className="link"
          disabled={busy}
          title="Edit this goal call's arguments and run on from a new branch"
          onClick={() => {
            setDraft(prettyJson(input));
            setInvalid(undefined);
            setSent(false);
          }}
        >
          Edit &amp; replay
        </button>
        {failed && (
          <span role="alert" className="error">
            {failed}
          </span>
        )}
      </span>
    );
  }
  return (
    <form
      className="replay-goal-form"
      aria-label="Edit goal call"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = parseArguments(draft);
        if (!parsed.ok) return setInvalid(parsed.message);
        runs.replay(sessionId, {
          from_message_id: messageId,
          modified_tool_call: { tool_call_id: callId, new_arguments: parsed.value },
        });
        setDraft(undefined);
        setSent(true);
        onStarted?.();
      }}
    >
      <label className="field">
        <span>New goal arguments (JSON)</span>
        <textarea
          value={draft}
          rows={Math.min(12, draft.split("\n").length + 1)}
          spellCheck={false}
          onChange={(e) => setDraft(e.target.value)}
        />
      </label>
      <ErrorAlert error={invalid} />
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy}>
          Replay from here
        </button>
        <button type="button" onClick={() => setDraft(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A replay button for each goal call an assistant message made (none for other entries). */
export function GoalReplayButtons({ sessionId, entry, onStarted }: { sessionId: string; entry: Entry; onStarted?: () => void }) {
  if (entry.type !== "message" || entry.message.role !== "assistant") return null;
  const calls = entry.message.content.flatMap((p) => (p.type === "tool-call" && p.toolName === "goal" ? [p] : []));
  if (calls.length === 0) return null;
  return (
    <div className="replay-goals">
      {calls.map((call) => (
        <div key={call.toolCallId}>
          <code>goal {JSON.stringify(call.input)}</code>{" "}
          <ReplayGoalButton
            sessionId={sessionId}
            messageId={entry.id}
            callId={call.toolCallId}
            input={JSON.stringify(call.input)}
            {...(onStarted ? { onStarted } : {})}
          />
        </div>
      ))}
    </div>
  );
}
