import { useState } from "react";
import { useAction } from "../../lib/use-action.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import type { PermissionAsk } from "./run-state.js";

/** How far an "always" answer reaches: this session, every session of the workspace, or everywhere. */
export type AlwaysScope = "session" | "project" | "global";

interface Props {
  ask: PermissionAsk;
  onReply: (reply: "once" | "always" | "reject", scope?: AlwaysScope) => Promise<void>;
}

/** A pending permission ask, answered in place (`POST /api/permissions/:id`). */
export function PermissionCard({ ask, onReply }: Props) {
  const { busy, error, run } = useAction();
  const [scope, setScope] = useState<AlwaysScope>("session");
  const reply = (choice: "once" | "always" | "reject") => run(() => onReply(choice, choice === "always" ? scope : undefined));
  const what = `${ask.tool ?? ask.permission}${ask.patterns.length ? `: ${ask.patterns.join(", ")}` : ""}`;
  return (
    <section
      className="permission-ask"
      aria-label={`Permission request for ${ask.tool ?? ask.permission}`}
      data-permission-id={ask.id}
    >
      <p>
        <strong>Permission needed</strong> — <span className="badge">{ask.permission}</span> <code>{what}</code>
      </p>
      {ask.reply ? (
        <p className="muted" data-testid="permission-answer">
          Answered: {ask.reply === "reject" ? "rejected" : ask.reply === "always" ? "allowed always" : "allowed once"}
        </p>
      ) : (
        <div className="button-row">
          <button type="button" className="primary" disabled={busy} onClick={() => void reply("once")}>
            Allow once
          </button>
          <button type="button" disabled={busy} onClick={() => void reply("always")}>
            Always allow
          </button>
          <select
            aria-label="Remember for"
            value={scope}
            disabled={busy}
            onChange={(e) => setScope(e.target.value as AlwaysScope)}
          >
            <option value="session">in this session</option>
            <option value="project">in this project</option>
            <option value="global">everywhere</option>
          </select>
          <button type="button" className="danger" disabled={busy} onClick={() => void reply("reject")}>
            Reject
          </button>
        </div>
      )}
      <ErrorAlert error={error} />
    </section>
  );
}
