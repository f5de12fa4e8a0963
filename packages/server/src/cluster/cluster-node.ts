import { hostname } from "node:os";
import { ArborError, type Runtime, type Store } from "@arbor/core";
import pg from "pg";
import { ApiError } from "../errors.js";
import { toRunInput } from "../protocols/shared/run-input.js";
import { type McpSubscriptionBook, PgMcpSubscriptions } from "./mcp-subscriptions.js";
import { type ControlRequest, PgSignals } from "./pg-signals.js";
import { type ChatJob, ClusterQueues, type QueuedChat } from "./queues.js";
import { started, writtenChatKeys } from "./run-start.js";

/** How an instance of a cluster is tuned; every field has a default. */
export interface ClusterSettings {
  /** The PostgreSQL database the store is on (the queue and the notifications share it). */
  url: string;
  /** The PostgreSQL schema of the store's tables, when not the default search path. */
  schema?: string;
  /** How often the instance looks for sessions whose driver is gone (default 2,000 ms). */
  sweepMs?: number;
  /** How long a request to the other instances (abort, answer an ask) waits for the one that can do it (default 3,000 ms). */
  askMs?: number;
  /** How long a silent instance keeps the chats it runs before pg-boss itself gives them to another (default 20 s; at least 10). */
  heartbeatSeconds?: number;
  /**
   * How long a chat's job may go without a heartbeat before this instance's sweep gives it to
   * another (default 5,000 ms): the takeover time, for a chat taken by an instance that died before
   * its run held a lease.
   */
  silentChatMs?: number;
  /** How many queued chats this instance runs at once (default 16). */
  concurrency?: number;
  /** The workspace a session created by a queued chat records (default the process's). */
  cwd?: string;
}

/** A chat to queue: what POST /api/chat was given. */
export type ChatRequestInput = Omit<QueuedChat, "sessionId" | "key"> & {
  sessionId?: string;
  /** Without `sessionId`: the id the chat's new session gets (a useChat client names its chat). */
  newSessionId?: string;
};

/** Where a queued chat's events will be: its session, and the log id its run's events come after. */
export interface QueuedChatRef {
  sessionId: string;
  after: number;
}

/** What the health route says about this instance. */
export interface ClusterHealth {
  instance: string;
  /** It takes new work: started, not shutting down, and hearing the other instances. */
  accepting: boolean;
}

/** What the server's routes need from the cluster: health, and reaching runs another instance drives. */
export interface ClusterRelay {
  health(): ClusterHealth;
  abort(sessionId: string, reason: string): Promise<boolean>;
  replyPermission(id: string, reply: "once" | "always" | "reject", message?: string, scope?: AlwaysScope): Promise<boolean>;
  /** Answers a plan approval a run on another instance waits for; false when none does. */
  approvePlan(planId: string, approved: boolean, reason?: string): Promise<boolean>;
  /** Records and queues a chat in one transaction; whichever instance takes it runs it. */
  queueChat(input: ChatRequestInput): Promise<QueuedChatRef>;
  /** The stateless `/mcp` clients' resource subscriptions, shared by every instance. */
  readonly mcpSubscriptions: McpSubscriptionBook;
}

type AlwaysScope = "session" | "project" | "global";

/**
 * Top-level sessions stored as running: each has a driver, or had one that died (then it reads as
 * interrupted). Matched as text, not cast to JSON: one damaged row must not fail the whole sweep.
 */
const runningSessions = (schema: string | undefined) =>
  `select id from ${schema ? `"${schema}".` : ""}arbor_sessions where parent_session_id is null and data like '%"status":"running"%' order by updated_at limit 1000`;

/** How a chat's run may end before writing its message and still be owed a run: a store failure, a lost lease. */
const REQUEUED_FAILURES: ReadonlySet<string> = new Set(["io_error", "session_busy"]);

/** How long after a run ended its readers elsewhere still wait for its last events (done, error). */
const LAST_EVENTS_GRACE_MS = 5_000;

/** The event a queued chat leaves in its session's log (not a run event: streams skip it). */

/**
 * One instance of `arbor serve --cluster`: it wakes sessions whose driver is gone (found by a sweep
 * and dispatched through the wake queue, so exactly one instance takes each), tells the others when
 * its runs log events, and carries aborts and permission answers to the instance whose run waits.
 */
export class ClusterNode implements ClusterRelay {
  readonly instance = `${hostname()}:${process.pid}`;
  private readonly pool: pg.Pool;
  private readonly signals: PgSignals;
  private readonly queue: ClusterQueues;
  readonly mcpSubscriptions: PgMcpSubscriptions;
  /** Aborted on shutdown: chat jobs still running here are given back to the queue. */
  private readonly handBack = new AbortController();
  private sweeper: NodeJS.Timeout | undefined;
  private started = false;
  private draining = false;
  private readonly sweepMs: number;
  private readonly askMs: number;
  private runtime: Runtime | undefined;

  constructor(
    private readonly settings: ClusterSettings,
    private readonly store: Store,
    private readonly log: (line: string) => void,
  ) {
    this.sweepMs = settings.sweepMs ?? 2_000;
    this.askMs = settings.askMs ?? 3_000;
    this.pool = new pg.Pool({ connectionString: settings.url, max: 4 });
    this.pool.on("error", () => undefined);
    this.signals = new PgSignals(settings.url, this.pool, log);
    this.mcpSubscriptions = new PgMcpSubscriptions(this.pool, settings.schema, (client) =>
      this.signals.tell({ t: "mcp_subscriptions", client }),
    );
    this.queue = new ClusterQueues(
      { url: settings.url, heartbeatSeconds: settings.heartbeatSeconds ?? 20, concurrency: settings.concurrency ?? 16 },
      (err) => log(`arbor serve: the run queue failed: ${err.message}`),
    );
  }

  /** What the runtime's event log is given: pointers out, wake-ups in. */
  get runEvents() {
    return {
      onLogged: (sessionId: string, lastId: number) => this.signals.logged(sessionId, lastId),
      foreign: {
        // A run cut off (its instance died) is taken over soon: its readers wait for it instead of ending.
        driven: async (sessionId: string) => {
          const meta = await this.store.getSession(sessionId);
          if (!meta) return false;
          if (meta.status === "running" || meta.status === "interrupted") return true;
          // A chat queued for it is about to run, wherever.
          if ((await this.queue.openChats(sessionId)).length > 0) return true;
          // A run's end is stored before its last events reach the log: wait for them a little.
          return Date.now() - Date.parse(meta.updatedAt) < LAST_EVENTS_GRACE_MS;
        },
        changed: (sessionId: string, ms: number) => this.signals.changed(sessionId, ms),
      },
    };
  }

  /** Starts listening, working the queue and sweeping; adopts the orphans found at once. */
  async start(runtime: Runtime): Promise<void> {
    this.runtime = runtime;
    await this.mcpSubscriptions.ensureTable();
    await this.signals.start((req) => this.handle(req));
    await this.queue.start({ wake: (id) => this.wake(id), run: (job) => this.runChat(job) });
    this.started = true;
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), this.sweepMs);
    this.sweeper.unref();
  }

  health(): ClusterHealth {
    return { instance: this.instance, accepting: this.started && !this.draining && this.signals.listening };
  }

  /**
   * Queues a wake for every top-level session stored as running whose driver is gone, and gives
   * back the chats whose instance went silent before its run held a lease.
   */
  async sweep(): Promise<number> {
    if (this.draining) return 0;
    // A failed look at the chats must not stop the wakes, nor the instance's start: pg-boss's own check backs it up.
    const reclaimed = await this.queue.reclaimSilentChats(this.settings.silentChatMs ?? 5_000).catch((err: unknown) => {
      this.log(`arbor serve: looking for chats of silent instances failed: ${err instanceof Error ? err.message : String(err)}`);
      return 0;
    });
    if (reclaimed > 0) this.log(`arbor serve: gave ${reclaimed} chat(s) of a silent instance back to the queue`);
    const table = `${this.settings.schema ? `"${this.settings.schema}".` : ""}arbor_leases`;
    const orphaned = await this.queue.reclaimChatsOfExpiredLeases(table).catch((err: unknown) => {
      this.log(`arbor serve: looking for chats of expired leases failed: ${err instanceof Error ? err.message : String(err)}`);
      return 0;
    });
    if (orphaned > 0) this.log(`arbor serve: gave ${orphaned} chat(s) whose instance died holding the session back to the queue`);
    const { rows } = await this.pool.query<{ id: string }>(runningSessions(this.settings.schema));
    let queued = 0;
    for (const { id } of rows) {
      if ((await this.store.getSession(id))?.status !== "interrupted") continue;
      await this.queue.wake(id);
      queued++;
    }
    return queued;
  }

  /** Takes up a session's cut-off run here, unless another instance already did. */
  private async wake(sessionId: string): Promise<void> {
    const runtime = this.runtime;
    // Thrown back to the queue, which retries the job on another instance.
    if (!runtime || this.draining) throw new Error("this instance is shutting down");
    // A chat whose run died before writing its message owns the session: its retry runs the message.
    // A wake would find nothing to answer, or answer the previous message again.
    const open = await this.queue.openChats(sessionId);
    if (open.length > 0) {
      const written = await writtenChatKeys(this.store, sessionId);
      if (written && open.some((chat) => !written.has(chat.key))) return;
    }
    const woken = await started(runtime.runs.resume(sessionId));
    if (!("handle" in woken)) return;
    const handle = woken.handle;
    this.log(`arbor serve: took over the run of session ${sessionId}`);
    // The runtime records the run and publishes its watch events; readers follow it from the log.
    void handle.result.then((r) => this.log(`arbor serve: session ${sessionId}'s run ended ${r.status}`));
  }

  async queueChat(input: ChatRequestInput): Promise<QueuedChatRef> {
    const runtime = this.runtime;
    if (!runtime || this.draining) {
      throw new ApiError(
        "instance_unavailable",
        "This instance is shutting down and queues no new chats; send the request again to another instance.",
      );
    }
    // The principal was checked before queueing; the job carries who sent it (no credentials) to record it.
    const { sessionId, newSessionId, ...rest } = input;
    const { principal } = input;
    // The runtime records the chat and this queue's job in one transaction; the job carries its key.
    const queued = await runtime.runs.queue(
      {
        message: input.message,
        instance: this.instance,
        ...(sessionId === undefined
          ? {
              ...(newSessionId === undefined ? {} : { newSessionId }),
              create: {
                cwd: this.settings.cwd ?? process.cwd(),
                agentId: input.agent ?? "build",
                ...(principal === undefined ? {} : { createdBy: principal.id }),
              },
            }
          : { sessionId }),
      },
      (job, db) => this.queue.sendChat({ ...rest, ...job }, db),
    );
    return { sessionId: queued.sessionId, after: queued.after };
  }

  /**
   * Runs a queued chat, once: an attempt after an earlier one died (or was given back) looks in the
   * journal for the chat's message first, and wakes the run the earlier attempt started instead of
   * writing the message again. Throwing gives the job back to the queue, for a retry anywhere.
   */
  private async runChat({ chat, attempt }: ChatJob): Promise<void> {
    const runtime = this.runtime;
    if (!runtime || this.draining) throw new Error("this instance is shutting down");
    if (attempt > 0) {
      const written = await writtenChatKeys(this.store, chat.sessionId);
      if (written === undefined) return;
      if (written.has(chat.key)) {
        if ((await this.store.getSession(chat.sessionId))?.status === "interrupted") await this.wake(chat.sessionId);
        return;
      }
      this.log(`arbor serve: took up chat ${chat.key} of session ${chat.sessionId} (attempt ${attempt + 1})`);
    }
    const { key, ...turn } = chat;
    const run = await started(runtime.runs.run(toRunInput({ ...turn, requestKey: key })));
    if (!("handle" in run)) {
      // Another driver holds the session (a woken run, a CLI): the chat waits its turn. A session
      // deleted meanwhile has nothing left to run.
      if (run.refused === "session_busy") throw new Error(`session ${chat.sessionId} is driven elsewhere; the chat waits`);
      return;
    }
    const handle = run.handle;
    let onHandBack = () => {};
    const handedBack = new Promise<"handed back">((resolve) => {
      onHandBack = () => resolve("handed back");
      this.handBack.signal.addEventListener("abort", onHandBack, { once: true });
    });
    const outcome = await Promise.race([handle.result, handedBack]);
    this.handBack.signal.removeEventListener("abort", onHandBack);
    if (outcome === "handed back") throw new Error("this instance shut down; the chat goes to another");
    // The store failed the run (the database unreachable longer than its retries), or the run lost its
    // session's lease (its writes fenced off: another driver took the session), before the chat's
    // message was written: the chat was acknowledged when queued, so it goes back to the queue to be
    // run once the store answers again, rather than vanish.
    const failure = outcome.status === "done" ? undefined : outcome.error;
    if (failure && REQUEUED_FAILURES.has(failure.code)) {
      const written = await writtenChatKeys(this.store, chat.sessionId);
      if (written && !written.has(key))
        throw new Error(`the chat's run failed before its message was written (${failure.code}): ${failure.message}`);
    }
  }

  private async handle(req: ControlRequest): Promise<boolean> {
    const runtime = this.runtime;
    if (!runtime) return false;
    switch (req.t) {
      case "abort":
        return runtime.runs.abort(req.session, new ArborError("aborted", req.reason));
      case "permission":
        return runtime.asks.replyPermission(req.id, req.reply, req.message, req.scope);
      case "plan": {
        // Only the instance whose run waits on the plan takes the answer; the others stay silent.
        if (!runtime.asks.pendingPlanApprovals().some((p) => p.planId === req.plan)) return false;
        await runtime.asks.approvePlan(req.plan, req.approved, req.reason);
        return true;
      }
      case "mcp_subscriptions":
        // Every instance holding the client's stream acts on it; nobody waits for an ack.
        this.mcpSubscriptions.changed(req.client);
        return false;
    }
  }

  abort(sessionId: string, reason: string): Promise<boolean> {
    return this.signals.ask({ t: "abort", session: sessionId, reason }, this.askMs);
  }

  replyPermission(id: string, reply: "once" | "always" | "reject", message?: string, scope?: AlwaysScope): Promise<boolean> {
    return this.signals.ask(
      {
        t: "permission",
        id,
        reply,
        ...(message === undefined ? {} : { message }),
        ...(scope === undefined ? {} : { scope }),
      },
      this.askMs,
    );
  }

  approvePlan(planId: string, approved: boolean, reason?: string): Promise<boolean> {
    return this.signals.ask({ t: "plan", plan: planId, approved, ...(reason === undefined ? {} : { reason }) }, this.askMs);
  }

  /**
   * Hands this instance's runs back on shutdown: stops taking work, then returns the sessions it
   * drives, which the caller releases (closing the store gives their leases back) before `requeue`.
   */
  async drain(): Promise<string[]> {
    this.draining = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.handBack.abort();
    await this.queue.stopWorking();
    const { rows } = await this.pool.query<{ id: string }>(runningSessions(this.settings.schema));
    const mine: string[] = [];
    for (const { id } of rows) {
      const holder = await this.store.leaseHolder(id).catch(() => undefined);
      if (holder && holder.pid === process.pid && holder.host === hostname()) mine.push(id);
    }
    return mine;
  }

  /** Queues the given sessions for another instance (after their leases were given back). */
  async requeue(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.queue.wake(id).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.draining = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.queue.close();
    await this.signals.close();
    await this.pool.end().catch(() => undefined);
  }
}
