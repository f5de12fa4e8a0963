import type { RunEventLog, RunRecordingSink } from "../events/run-event-log.js";
import type { TraceStartKind } from "../events/watch-events.js";
import { WatchHub } from "../events/watch-hub.js";
import type { ExecuteOptions, RunExtension } from "../loop/extension.js";
import type { RunHandle, RunResult, TracePublisher } from "../loop/types.js";
import type { RunEvent } from "../model/run-events.js";
import type { Store } from "../store/store.js";

/**
 * Every run records itself, whoever started it (an HTTP chat, a cluster queue, a woken session, the
 * CLI): the runtime opens a recording for each top-level run it starts, and front doors only read
 * (`runtime.events.follow`, `runtime.events.reader`, `runtime.watch`). A recording does three things:
 *
 * 1. Its run's stream goes into the session's event log (`RunEventLog.open`), each event handed over
 *    as it is emitted, so the handle's own iterator stays the caller's. The events wait until the run
 *    holds its session; a run refused because another driver holds it (`session_busy`, `session_not_interrupted`)
 *    reaches its readers without being written, since in that driver's log its error would read as
 *    the end of the driver's run.
 * 2. `trace_started` is published from the run's first extension's `start`: once the session exists
 *    and holds the run (a refused run never starts and publishes nothing), and before the run writes
 *    anything, so it comes before the run's first `message_added` in the trace's log.
 * 3. `trace_completed`, with the session's totals, is published once every event of the run is logged
 *    and the run has ended, and only for a run that started: each exactly once per run.
 *
 * Crash reasoning: nothing here is written before the store has it. A process that dies mid-run leaves
 * a `trace_started` without its `trace_completed`; the run that wakes the session publishes its own
 * pair (`kind: "wake"`), so a watcher sees the cut-off run end only with the run that took it up.
 */
export interface RunRecordingDeps {
  events: RunEventLog;
  /** Where the run's watch events go: the runtime's hub, or the publisher the runtime was given. */
  publisher: TracePublisher;
  store: Store;
}

/** One run's recording, opened before its handle exists (the run may emit at once). */
export interface RunRecording {
  /** Every event of the run, as the caller's stream gets it. */
  push(event: RunEvent): void;
  /** Starts logging the run's events under its handle (for `events.follow`). */
  record(handle: RunHandle): void;
  /**
   * The run holds its session (its lease): its events go to the session's log from now on, also
   * those before it starts (a login an MCP server asks for while the run lists its tools).
   */
  admitted(): void;
  /** Put first in the run's extensions: publishes `trace_started`. */
  readonly extension: RunExtension;
  /**
   * Resolves once every event the run emitted and every watch event published to its session so far
   * are logged: the run awaits it before it gives its session up, so its log is written under its
   * lease (the cheap path, which no other driver can come between) instead of after it.
   */
  logged(sessionId: string): Promise<void>;
  /** The run ended (its stream is complete): `trace_completed` follows once its events are logged. */
  end(result: RunResult): void;
}

/** The errors of a run that never held its session because another driver does. */
const REFUSED_FOR_ANOTHER_DRIVER: ReadonlySet<string> = new Set(["session_busy", "session_not_interrupted"]);

/** How the execution options say a run began. */
export function startKind(execution: ExecuteOptions): TraceStartKind {
  if (execution.wake) return "wake";
  if (execution.replay) return "replay";
  return execution.resume ? "resume" : "prompt";
}

/** The recordings of one runtime; `settled` is what its `close` waits for. Owned by the runtime: no module state. */
export class RunRecorder {
  private readonly finishing = new Set<Promise<void>>();

  constructor(private readonly deps: RunRecordingDeps) {}

  open(kind: TraceStartKind): RunRecording {
    const { events, publisher, store } = this.deps;
    // Events before `record` (none, as the runtime calls it) wait here; from then on they go straight to the log.
    let early: RunEvent[] | undefined = [];
    let sink: RunRecordingSink | undefined;
    let closed = false;
    let recorded: Promise<void> = Promise.resolve();
    let started = false;
    let logs: (ok: boolean) => void = () => {};
    const logged = new Promise<boolean>((resolve) => {
      logs = resolve;
    });
    return {
      push: (event) => {
        if (sink) sink.push(event);
        else if (!closed) early?.push(event);
      },
      record: (handle) => {
        sink = events.open(handle, logged);
        recorded = sink.recorded;
        for (const event of early ?? []) sink.push(event);
        early = undefined;
        if (closed) sink.end();
      },
      admitted: () => logs(true),
      logged: async (sessionId) => {
        await events.logged(sessionId);
        // A caller's own publisher logs on its own schedule; the runtime's hub is waited for.
        if (publisher instanceof WatchHub) await publisher.flush(sessionId);
      },
      extension: {
        name: "record-run",
        start: (run) => {
          started = true;
          logs(true);
          run.publish({ event: "trace_started", kind, agent: run.agent.name });
        },
      },
      end: (result) => {
        logs(started || !REFUSED_FOR_ANOTHER_DRIVER.has(result.error?.code ?? ""));
        closed = true;
        sink?.end();
        if (!started) return;
        const done = recorded
          .then(() => publishCompleted(store, publisher, result))
          .catch(() => undefined)
          .finally(() => this.finishing.delete(done));
        this.finishing.add(done);
      },
    };
  }

  /** Resolves once every ended run's `trace_completed` is published. */
  async settled(): Promise<void> {
    while (this.finishing.size > 0) await Promise.all([...this.finishing]);
  }
}

async function publishCompleted(store: Store, publisher: TracePublisher, result: RunResult): Promise<void> {
  const meta = await store.getSession(result.sessionId);
  if (!meta) return;
  await publisher.publish(result.sessionId, {
    event: "trace_completed",
    status: result.status,
    stats: { total_messages: meta.totalMessages, total_tokens: meta.totalTokens, total_cost: meta.totalCost },
  });
}
