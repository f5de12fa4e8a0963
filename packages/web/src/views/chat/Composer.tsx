import { type FormEvent, type KeyboardEvent, useId, useState } from "react";
import { DebugLevelPicker } from "./DebugLevelPicker.js";

export interface ComposerValue {
  message: string;
  model: string;
  agent: string;
}

interface Props {
  running: boolean;
  /** While a run streams, a message is handed to it (steering) instead of waiting for it to end. */
  steerable?: boolean;
  onSend: (value: ComposerValue) => void;
  onAbort?: (() => void) | undefined;
  /** Set when the user picked an entry in the tree to continue from. */
  continueFrom?: { entryId: string; description: string } | undefined;
  onCancelContinue?: (() => void) | undefined;
}

const AGENTS = ["build", "plan", "general", "explore"];

/** The message box with the model and agent pickers; Ctrl/Cmd+Enter sends. */
export function Composer({ running, steerable = false, onSend, onAbort, continueFrom, onCancelContinue }: Props) {
  const blocked = running && !steerable;
  const [message, setMessage] = useState("");
  const [model, setModel] = useState("");
  const [agent, setAgent] = useState("");
  const agentsId = useId();
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (!message.trim() || blocked) return;
    onSend({ message, model: model.trim(), agent: agent.trim() });
    setMessage("");
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) submit();
  };
  return (
    <form className="composer" onSubmit={submit} aria-label="Composer">
      {continueFrom && (
        <p className="continue-from" role="status">
          Continuing from <code>{continueFrom.description}</code>
          <button type="button" className="link" onClick={onCancelContinue}>
            cancel
          </button>
        </p>
      )}
      <label className="field grow">
        <span>Message</span>
        <textarea
          value={message}
          rows={3}
          placeholder={
            running && steerable ? "Tell the running agent… (Ctrl+Enter to send)" : "Ask the agent… (Ctrl+Enter to send)"
          }
          onChange={(e) => setMessage(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </label>
      <div className="composer-bar">
        <label className="field">
          <span>Model</span>
          <input value={model} placeholder="server default (provider/model)" onChange={(e) => setModel(e.target.value)} />
        </label>
        <label className="field">
          <span>Agent</span>
          <input value={agent} list={agentsId} placeholder="build" onChange={(e) => setAgent(e.target.value)} />
          <datalist id={agentsId}>
            {AGENTS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <DebugLevelPicker />
        <div className="button-row">
          {running && onAbort && (
            <button type="button" className="danger" onClick={onAbort}>
              Abort
            </button>
          )}
          <button type="submit" className="primary" disabled={blocked || !message.trim()}>
            {running && steerable ? "Steer" : "Send"}
          </button>
        </div>
      </div>
    </form>
  );
}
