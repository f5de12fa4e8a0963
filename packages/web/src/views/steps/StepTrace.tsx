import type { Snapshot } from "@arbor/core";

/** Seed 002's step trace: not built yet (the route it reads, GET /api/sessions/:id/messages, has just landed). */
export function StepTrace({ sessionId }: { sessionId: string; snapshot: Snapshot | undefined }) {
  return (
    <div className="panel-scroll">
      <p className="muted">
        The step trace of <code>{sessionId}</code> (thoughts, tool calls, results and per-tool stats) is not built yet. Each tool
        call's arguments, output and duration are in the Chat view.
      </p>
    </div>
  );
}
