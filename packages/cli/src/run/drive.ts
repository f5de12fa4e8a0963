import type { RunEvent } from "@arbor/core";
import type { Io } from "../io.js";
import type { RunOutcome, RunView } from "../render/live.js";

/** What the CLI needs of a started run; the runtime's `RunHandle` is one. */
export interface RunHandleLike extends AsyncIterable<RunEvent> {
  readonly sessionId: string;
  readonly result: Promise<RunOutcome>;
  abort(reason?: unknown): void;
}

export interface Driven {
  outcome: RunOutcome;
  elapsedMs: number;
  /** Ctrl-C stopped it. */
  interrupted: boolean;
}

/**
 * Plays a run's events into a view until the run ends. Ctrl-C aborts the run and still waits for its
 * result, so the session is left consistent (the runtime records what was done and marks unfinished
 * tool calls interrupted); a second Ctrl-C is the process's to handle (see `Io.onInterrupt`).
 */
export async function driveRun(opts: { io: Io; handle: RunHandleLike; view: RunView; now?: () => number }): Promise<Driven> {
  const { io, handle, view } = opts;
  const now = opts.now ?? (() => performance.now());
  const started = now();
  let interrupted = false;
  const release = io.onInterrupt?.(() => {
    if (interrupted) return;
    interrupted = true;
    view.breakLine();
    io.stderr.write("interrupted: stopping the run and keeping what it did (Ctrl-C again quits at once)\n");
    handle.abort(new Error("interrupted by the user (SIGINT)"));
  });
  try {
    try {
      for await (const event of handle) view.event(event);
    } catch {
      // The stream of a failed run may throw; its result says what happened, and never rejects.
    }
    const outcome = await handle.result;
    return { outcome, elapsedMs: Math.max(0, now() - started), interrupted };
  } finally {
    release?.();
  }
}
