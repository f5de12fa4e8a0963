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
 * Plays a run's events into a view until the run ends. With `logged` (the runtime's
 * `events.logged`), an event is shown only once it is in the session's event log: what `arbor run
 * --json` printed was acknowledged to its reader, so a kill -9 right after must not lose it from the
 * log that a resumed run, a watcher and `arbor events` read. The log takes a turn's events in one
 * append, so events are shown in batches: those that arrived before the wait began, after it. Ctrl-C aborts the run and still waits for its
 * result, so the session is left consistent (the runtime records what was done and marks unfinished
 * tool calls interrupted); a second Ctrl-C is the process's to handle (see `Io.onInterrupt`).
 */
export async function driveRun(opts: {
  io: Io;
  handle: RunHandleLike;
  view: RunView;
  now?: () => number;
  logged?: (sessionId: string) => Promise<void>;
}): Promise<Driven> {
  const { io, handle, view, logged } = opts;
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
    let shown: Promise<void> = Promise.resolve();
    try {
      if (!logged) for await (const event of handle) view.event(event);
      else {
        let waiting: RunEvent[] = [];
        const showWaiting = async () => {
          const batch = waiting;
          waiting = [];
          // Taken before the wait: `logged` covers every event emitted up to its call, not those after.
          await logged(handle.sessionId).catch(() => undefined);
          for (const event of batch) view.event(event);
        };
        for await (const event of handle) {
          waiting.push(event);
          if (waiting.length === 1) shown = shown.then(showWaiting);
        }
      }
    } catch {
      // The stream of a failed run may throw; its result says what happened, and never rejects.
    }
    await shown;
    const outcome = await handle.result;
    return { outcome, elapsedMs: Math.max(0, now() - started), interrupted };
  } finally {
    release?.();
  }
}
