import { ArborError, type RunEvent, type RunHandle } from "@arbor/core";
import { safeErrorMessage } from "../errors.js";
import { SessionLog } from "./session-log.js";

export interface StreamBufferOptions {
  /** Events kept per session for resuming readers (default 10,000); older ones are dropped first. */
  eventsPerSession?: number;
  /** Logs of sessions with no run in progress kept for late readers (default 100); least recent dropped first. */
  idleSessions?: number;
}

/** How a run ended, as its last event said. */
export interface RunEnd {
  sessionId: string;
  status: "done" | "error" | "aborted";
}

/**
 * The runs this server started and their event logs, one log per session. Owned by one server
 * instance (no module state): event ids come from its counter, so they increase strictly across
 * every session and run it serves and identify the run they belong to. A run is pumped into its
 * log by the server, never by a client, so a client that disconnects never stops or aborts it.
 */
export class RunStreams {
  private readonly logs = new Map<string, SessionLog>();
  private nextId = 0;
  private readonly eventsPerSession: number;
  private readonly idleSessions: number;
  private readonly onRunEnd: ((end: RunEnd) => Promise<void>) | undefined;

  constructor(options: StreamBufferOptions & { onRunEnd?: (end: RunEnd) => Promise<void> } = {}) {
    this.eventsPerSession = Math.max(1, options.eventsPerSession ?? 10_000);
    this.idleSessions = Math.max(0, options.idleSessions ?? 100);
    this.onRunEnd = options.onRunEnd;
  }

  get(sessionId: string): SessionLog | undefined {
    return this.logs.get(sessionId);
  }

  /** The log that issued `eventId`, if it is still kept. */
  findByEventId(eventId: number): SessionLog | undefined {
    for (const log of this.logs.values()) if (log.owns(eventId)) return log;
    return undefined;
  }

  isBusy(sessionId: string): boolean {
    const state = this.logs.get(sessionId)?.state;
    return state === "reserved" || state === "running";
  }

  /**
   * Claims an idle session for a run about to start (its setup awaits the store, and a second
   * chat must not slip in meanwhile). Throws `session_busy` when it is reserved or running.
   */
  reserve(sessionId: string): SessionLog {
    const log = this.logFor(sessionId);
    if (log.state !== "idle") {
      throw new ArborError(
        "session_busy",
        `Session ${sessionId} is already running; wait for its done event, resume its stream with GET /api/sessions/${sessionId}/stream, or abort it with POST /api/sessions/${sessionId}/abort.`,
      );
    }
    log.state = "reserved";
    return log;
  }

  /** Gives back a reservation whose run did not start. */
  release(log: SessionLog): void {
    if (log.state !== "reserved") return;
    log.state = "idle";
    log.abortRequested = false;
    this.evictIdle();
  }

  /** Starts pumping a run into its session's log; returns the cursor before its first event. */
  start(handle: RunHandle): SessionLog {
    const log = this.logFor(handle.sessionId);
    // Most recently used last, so idle eviction drops the longest-unused logs first.
    this.logs.delete(log.sessionId);
    this.logs.set(log.sessionId, log);
    log.state = "running";
    log.handle = handle;
    log.latestRunCursor = log.lastId;
    if (log.abortRequested) handle.abort(new ArborError("aborted", "The run was aborted before it started."));
    log.abortRequested = false;
    void this.pump(log, handle);
    return log;
  }

  /** Aborts the session's run; false when it has none in progress. */
  abort(sessionId: string): boolean {
    const log = this.logs.get(sessionId);
    if (log?.state === "running" && log.handle) {
      log.handle.abort(new ArborError("aborted", `The run was aborted by POST /api/sessions/${sessionId}/abort.`));
      return true;
    }
    if (log?.state === "reserved") {
      log.abortRequested = true;
      return true;
    }
    return false;
  }

  /** Forgets a deleted session and its sub-sessions (`{id}@…`); their readers end. */
  drop(sessionId: string): void {
    for (const [id, log] of this.logs) {
      if (id === sessionId || id.startsWith(`${sessionId}@`)) {
        this.logs.delete(id);
        log.close();
      }
    }
  }

  /** Ends every reader (server shutdown); runs go on, they are the runtime's. */
  close(): void {
    for (const log of this.logs.values()) log.close();
  }

  private logFor(sessionId: string): SessionLog {
    let log = this.logs.get(sessionId);
    if (!log) {
      log = new SessionLog(sessionId, this.eventsPerSession);
      this.logs.set(sessionId, log);
    }
    return log;
  }

  private async pump(log: SessionLog, handle: RunHandle): Promise<void> {
    let ended = false;
    let status: RunEnd["status"] = "error";
    try {
      for await (const event of handle) {
        log.append(++this.nextId, event);
        if (event.type === "done" || event.type === "error") {
          ended = true;
          status = event.type === "done" ? "done" : event.code === "aborted" ? "aborted" : "error";
        }
      }
    } catch (err) {
      // The run stream does not throw; if it ever does, readers still get an ending.
      if (!ended) log.append(++this.nextId, internalError(log.sessionId, err));
      ended = true;
    }
    if (!ended) {
      log.append(++this.nextId, internalError(log.sessionId, new Error("the run stream ended without done or error")));
    }
    log.state = "idle";
    log.handle = undefined;
    log.notify();
    this.evictIdle();
    await this.onRunEnd?.({ sessionId: log.sessionId, status }).catch(() => {});
  }

  private evictIdle(): void {
    let idle = 0;
    for (const log of this.logs.values()) if (log.state === "idle") idle++;
    for (const [id, log] of this.logs) {
      if (idle <= this.idleSessions) break;
      if (log.state !== "idle") continue;
      this.logs.delete(id);
      log.close();
      idle--;
    }
  }
}

function internalError(sessionId: string, err: unknown): RunEvent {
  return { type: "error", session_id: sessionId, content: safeErrorMessage(err), code: "internal_error" };
}
