/** The debug panel (LLM calls with model, tokens, duration): not built yet. */
export function DebugPanel({ sessionId }: { sessionId: string }) {
  return (
    <div className="panel-scroll">
      <p className="muted">
        The debug panel for <code>{sessionId}</code> (LLM calls with model, tokens and duration) is not built yet.
      </p>
    </div>
  );
}
