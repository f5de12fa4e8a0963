import { ArborError, isArborError, type RunEvent, type Runtime, type Store } from "@arbor/core";
import { RUN_EVENT_PREFIX, runEventFromRecord } from "@arbor/core/events";
import type { Principal } from "@arbor/core/store";
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import { ErrorCode, McpError, type Result, type Task } from "@modelcontextprotocol/sdk/types.js";
import { askOf } from "../shared/asks.js";
import type { ChatTurn } from "../shared/run-input.js";
import { toWire } from "../shared/run-output.js";
import type { ProtocolRuntime } from "../shared/runs.js";
import { mcpProgressWire, runResultOf } from "./run-tool.js";

/** How often a client is told to poll tasks/get. */
const POLL_MS = 1_000;
/** Log records read per page while looking over a run's events. */
const PAGE = 1_000;

/**
 * A task id names one run: its session, and the id of the session's log record its events come
 * after, so a later run of the same session is not taken for it. Nothing else is kept: the task's
 * state is the run's, read from the session's event log in the store, so any instance answers
 * tasks/get, tasks/result and tasks/cancel, also after the one that started it is gone.
 */
export const taskIdOf = (sessionId: string, after: number) => `${sessionId}~${after}`;

function parseTaskId(taskId: string): { sessionId: string; after: number } {
  const m = /^([^~]+)~(\d{1,15})$/.exec(taskId);
  if (!m?.[1] || m[2] === undefined) {
    throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} is not one of Arbor's (start_run returns them).`);
  }
  return { sessionId: m[1], after: Number(m[2]) };
}

/** What a run's log says of it so far. */
interface RunSoFar {
  createdAt: string;
  lastUpdatedAt: string;
  terminal: RunEvent | undefined;
  /** The latest progress line (a tool started, an ask waiting). */
  progress: string | undefined;
  asking: boolean;
}

export interface RunTaskDeps {
  runtime: Runtime;
  store: Store;
  runs: ProtocolRuntime;
  principal: Principal | undefined;
  /** Runs this process started as tasks: shared by every MCP server of one endpoint. */
  started: StartedTasks;
}

/** A run this process started as a task, until it ends. */
interface StartedTask {
  createdAt: string;
  /** Who started it: only they are told of it before its session is in the store. */
  principal: string | undefined;
}

/**
 * Tasks whose runs this process drives. A new session is written by its run a moment after
 * start_run answers, so until then the store knows nothing of the task: its starter reads it here
 * as working. Each is forgotten when its run ends, by which time the store answers for it. One per
 * endpoint (a stateful /mcp's sessions, a stateless /mcp's requests, a stdio server), so a
 * tasks/get on another MCP session or request of this process finds it too.
 */
export class StartedTasks {
  private readonly tasks = new Map<string, StartedTask>();

  add(taskId: string, task: StartedTask, ended: Promise<unknown>): void {
    this.tasks.set(taskId, task);
    void ended.finally(() => this.tasks.delete(taskId)).catch(() => {});
  }

  /** The task when `principal` started it here and its run goes on. */
  get(taskId: string, principal: Principal | undefined): StartedTask | undefined {
    const task = this.tasks.get(taskId);
    return task && task.principal === principal?.id ? task : undefined;
  }
}

/**
 * Runs as MCP tasks (the SDK's experimental tasks): `start` begins a run like run_prompt does
 * (queued on a cluster) and answers at once with its task; the TaskStore the SDK's tasks/get,
 * tasks/result and tasks/cancel handlers call reads and aborts that run through the store and the
 * cluster. Every read is checked as the principal's read of the session.
 */
export class RunTasks implements TaskStore {
  constructor(private readonly deps: RunTaskDeps) {}

  /** Begins the turn's run and answers its task, working. */
  async start(turn: ChatTurn): Promise<{ task: Task }> {
    const { runs, store } = this.deps;
    // The run's events come after what the log holds now (a new session's log is empty).
    const after = turn.sessionId === undefined ? 0 : await store.lastEventId(turn.sessionId);
    const begun = await runs.begin(turn, { steer: false });
    if ("steered" in begun) throw new ArborError("session_busy", `Session ${begun.steered.sessionId} has a run in progress.`);
    // The run is recorded whether or not anything reads it here.
    begun.started.reader.close();
    const now = new Date().toISOString();
    const taskId = taskIdOf(begun.started.sessionId, after);
    // Driven here (a cluster queues it instead, its session recorded with the queued chat).
    const handle = begun.started.handle;
    if (handle) this.deps.started.add(taskId, { createdAt: now, principal: this.deps.principal?.id }, handle.result);
    return {
      task: {
        taskId,
        status: "working",
        ttl: null,
        createdAt: now,
        lastUpdatedAt: now,
        pollInterval: POLL_MS,
      },
    };
  }

  private async soFar(taskId: string): Promise<{ sessionId: string; run: RunSoFar }> {
    const { sessionId, after } = parseTaskId(taskId);
    const { runtime, store, principal } = this.deps;
    try {
      await runtime.access.session(principal, sessionId, "read", "Reading a task");
    } catch (err) {
      // Started here a moment ago: its session is not written yet, and nothing has happened in it.
      const here = isArborError(err, "session_not_found") ? this.deps.started.get(taskId, principal) : undefined;
      if (here) {
        return {
          sessionId,
          run: {
            createdAt: here.createdAt,
            lastUpdatedAt: here.createdAt,
            terminal: undefined,
            progress: undefined,
            asking: false,
          },
        };
      }
      throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} not found: ${(err as Error).message}`);
    }
    const meta = await store.getSession(sessionId);
    const run: RunSoFar = {
      createdAt: meta?.createdAt ?? new Date(0).toISOString(),
      lastUpdatedAt: meta?.updatedAt ?? new Date(0).toISOString(),
      terminal: undefined,
      progress: undefined,
      asking: false,
    };
    let first = true;
    for (let from = after; ; ) {
      const page = await store.listEvents(sessionId, { after: from, limit: PAGE });
      for (const record of page) {
        if (!record.type.startsWith(RUN_EVENT_PREFIX)) continue;
        const event = runEventFromRecord(record);
        if (first) run.createdAt = record.timestamp;
        first = false;
        run.lastUpdatedAt = record.timestamp;
        if (event.type === "done" || event.type === "error") {
          run.terminal = event;
          return { sessionId, run };
        }
        const line = toWire(mcpProgressWire, { event, id: record.id, json: "" }).at(-1);
        if (line !== undefined) run.progress = line;
        if (askOf(event) !== undefined) run.asking = true;
        else if (event.type === "tool_end" || event.type === "llm_start") run.asking = false;
      }
      const last = page.at(-1);
      if (page.length < PAGE || !last) return { sessionId, run };
      from = last.id;
    }
  }

  async getTask(taskId: string): Promise<Task | null> {
    const { run } = await this.soFar(taskId);
    const t = run.terminal;
    const status: Task["status"] =
      t === undefined
        ? run.asking
          ? "input_required"
          : "working"
        : t.type === "done"
          ? "completed"
          : t.type === "error" && t.code === "aborted"
            ? "cancelled"
            : "failed";
    const statusMessage = t?.type === "error" ? t.content : run.progress;
    return {
      taskId,
      status,
      ttl: null,
      createdAt: run.createdAt,
      lastUpdatedAt: run.lastUpdatedAt,
      pollInterval: POLL_MS,
      ...(statusMessage === undefined ? {} : { statusMessage }),
    };
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const { sessionId, run } = await this.soFar(taskId);
    if (run.terminal === undefined) throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} has not finished.`);
    return runResultOf(sessionId, run.terminal, { kind: "ended", status: run.terminal.type === "done" ? "done" : "error" });
  }

  /** Only cancelling means anything here: the run's own events say every other status. */
  async updateTaskStatus(taskId: string, status: Task["status"]): Promise<void> {
    if (status !== "cancelled") return;
    const { sessionId } = await this.soFar(taskId);
    const { runtime, runs, principal } = this.deps;
    runtime.access.require(principal, "run", "Cancelling a task");
    const aborted = await runs.abort(sessionId, new ArborError("aborted", `The MCP client cancelled task ${taskId}.`));
    if (!aborted) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `No instance drives task ${taskId}'s run right now (still queued, or between drivers); cancel it again in a moment.`,
      );
    }
  }

  async createTask(): Promise<Task> {
    throw new McpError(ErrorCode.InvalidRequest, "Arbor's tasks are runs: start one with the start_run tool.");
  }

  async storeTaskResult(): Promise<void> {
    // A run's result is its last logged event; there is nothing else to keep.
  }

  async listTasks(): Promise<{ tasks: Task[] }> {
    throw new McpError(ErrorCode.MethodNotFound, "Arbor does not list tasks; list_sessions lists the sessions runs made.");
  }
}
