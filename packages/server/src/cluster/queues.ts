import { ThinkingLevelSchema } from "@arbor/core";
import { PrincipalSchema, type SqlExecutor } from "@arbor/core/store";
import { type Job, PgBoss } from "pg-boss";
import { z } from "zod";
import { ChatDebug } from "../cache-debug-schemas.js";

/** Sessions to wake: one queued job per session at a time (`short`: one queued per key). */
const WAKE = "arbor-wake";
/** Chats to run: any number queued per session, one active at a time (`singleton` per key). */
const RUN = "arbor-run";
/** pg-boss's schema (its default, named so the silent-chat query can read its job table). */
const BOSS_SCHEMA = "pgboss";
/** How often a worker running a chat moves its job's heartbeat, so a silent one is told within seconds. */
const CHAT_BEAT_SECONDS = 1;

/** A chat posted to some instance, as its queued job carries it to the instance that runs it. */
export const QueuedChatSchema = z.object({
  sessionId: z.string(),
  /** Unique per chat: kept on the user message, so a retried job can tell the message was written. */
  key: z.string(),
  message: z.string(),
  fromEntryId: z.string().optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  thinking: ThinkingLevelSchema.optional(),
  debug: ChatDebug.optional(),
  /** At most this many model calls (an MCP run_prompt's max_turns). */
  maxTurns: z.number().int().positive().optional(),
  /** Who sent it (checked before it was queued; no credentials): recorded as the message's `sentBy`. */
  principal: PrincipalSchema.optional(),
});
export type QueuedChat = z.infer<typeof QueuedChatSchema>;

/** A queued chat job as its worker gets it: `attempt` is 0 the first time, more once an earlier worker died or gave it back. */
export interface ChatJob {
  chat: QueuedChat;
  attempt: number;
}

export interface QueueSettings {
  url: string;
  /** How long a worker's silence means it died and its chat job goes to another (pg-boss's heartbeat; at least 10 s). */
  heartbeatSeconds: number;
  /** How many chats this instance runs at once. */
  concurrency: number;
}

/** Job states in which a chat still waits for, or is given to, an instance. */
const OPEN_STATES = new Set(["created", "retry", "active"]);

/** An active chat job's heartbeat as last read, and when (this instance's clock) it was first read so. */
interface SeenBeat {
  beat: string | null;
  since: number;
}

/**
 * The cluster's durable dispatch on pg-boss: chats to run (recorded and queued in the caller's
 * transaction, then run by exactly one instance at a time per session) and sessions to wake after
 * their driver died. A worker that dies before finishing a job has it retried elsewhere.
 */
export class ClusterQueues {
  private readonly boss: PgBoss;
  /** Active chat jobs' heartbeats by job id and attempt, to tell one that stopped moving. */
  private readonly beats = new Map<string, SeenBeat>();

  constructor(
    private readonly settings: QueueSettings,
    onError: (err: Error) => void,
  ) {
    this.boss = new PgBoss({
      connectionString: settings.url,
      schema: BOSS_SCHEMA,
      useListenNotify: true,
      max: 4,
      // The pass that fails a job whose worker stopped heartbeating: by default once a minute, which
      // would leave a dead instance's chats waiting far longer than the heartbeat says.
      superviseIntervalSeconds: Math.max(1, Math.min(5, Math.floor(settings.heartbeatSeconds / 4))),
    });
    this.boss.on("error", onError);
  }

  async start(workers: { wake: (sessionId: string) => Promise<void>; run: (job: ChatJob) => Promise<void> }): Promise<void> {
    await this.boss.start();
    // A wake's job lasts only until the run has started; one whose instance died with it is given to
    // another soon, not after pg-boss's default quarter of an hour (a duplicate wake finds the session taken).
    await this.ensure(WAKE, { policy: "short", notify: true, retryLimit: 20, retryDelay: 1, expireInSeconds: 15 });
    await this.ensure(RUN, {
      policy: "singleton",
      notify: true,
      // A chat is given back (shutdown) or lost with its worker (crash) any number of times; each retry
      // finds out from the journal what the earlier attempts did.
      retryLimit: 1_000,
      retryDelay: 1,
      heartbeatSeconds: Math.max(10, Math.ceil(this.settings.heartbeatSeconds)),
      // A run may take hours; the heartbeat, not the expiry, tells a dead worker.
      expireInSeconds: 24 * 3_600,
      deleteAfterSeconds: 600,
    });
    // NOTIFY wakes a worker only for a new job: a retry (a chat given back, a job whose worker died)
    // is found by polling, which pg-boss slows to every 30 s under NOTIFY unless told otherwise.
    await this.boss.work<{ sessionId: string }>(
      WAKE,
      { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1, batchSize: 1 },
      async (jobs) => {
        for (const job of jobs) await workers.wake(job.data.sessionId);
      },
    );
    await this.boss.work<unknown>(
      RUN,
      {
        pollingIntervalSeconds: 0.5,
        // A chat given back by a dead instance is a retry, found only by polling: half a second of
        // it is part of every takeover of a chat whose message was not yet written.
        notifyPollingIntervalSeconds: 0.5,
        batchSize: 1,
        localConcurrency: this.settings.concurrency,
        heartbeatRefreshSeconds: CHAT_BEAT_SECONDS,
      },
      async (jobs: Job<unknown>[]) => {
        for (const job of jobs) await workers.run({ chat: QueuedChatSchema.parse(job.data), attempt: job.retryCount });
      },
    );
  }

  private async ensure(name: string, options: Parameters<PgBoss["createQueue"]>[1]): Promise<void> {
    if (await this.boss.getQueue(name)) return;
    await this.boss.createQueue(name, options).catch(async (err: unknown) => {
      // Another instance created it at the same moment.
      if (!(await this.boss.getQueue(name))) throw err;
    });
  }

  /** Queues a wake of the session unless one is queued already. */
  async wake(sessionId: string): Promise<void> {
    await this.boss.send(WAKE, { sessionId }, { singletonKey: sessionId });
  }

  /** Queues a chat over the given transaction: it commits (and a worker may take it) only with the caller's writes. */
  async sendChat(chat: QueuedChat, db: SqlExecutor): Promise<void> {
    await this.boss.send(RUN, chat, { singletonKey: chat.sessionId, db });
  }

  /** The chats of the session that wait for an instance or are being run. */
  async openChats(sessionId: string): Promise<QueuedChat[]> {
    const jobs = await this.boss.findJobs(RUN, { key: sessionId, limit: 1_000 });
    return jobs.flatMap((j) => {
      if (!OPEN_STATES.has(j.state)) return [];
      const chat = QueuedChatSchema.safeParse(j.data);
      return chat.success ? [chat.data] : [];
    });
  }

  /**
   * Gives back to the queue, for another instance, the chats whose worker's heartbeat has not moved
   * for `silentMs` (its instance died, perhaps before the run started, so no lease tells it): sooner
   * than pg-boss's own check, whose floor is 10 s. Judged by this instance's clock between two reads,
   * so clocks need not agree; the fail is fenced to the attempt read, so a retry already taken by
   * another worker is left alone. Returns how many were given back.
   */
  async reclaimSilentChats(silentMs: number): Promise<number> {
    const { rows } = await this.boss
      .getDb()
      .executeSql(
        `select id, retry_count as "retryCount", heartbeat_on::text as beat from ${BOSS_SCHEMA}.job where name = $1 and state = 'active'`,
        [RUN],
      );
    const now = Date.now();
    const active = new Set<string>();
    const silent: Array<{ id: string; retryCount: number }> = [];
    for (const row of rows as Array<{ id: string; retryCount: number; beat: string | null }>) {
      const key = `${row.id}/${row.retryCount}`;
      active.add(key);
      const seen = this.beats.get(key);
      if (!seen || seen.beat !== row.beat) this.beats.set(key, { beat: row.beat, since: now });
      else if (now - seen.since >= silentMs) silent.push({ id: row.id, retryCount: row.retryCount });
    }
    for (const key of [...this.beats.keys()]) if (!active.has(key)) this.beats.delete(key);
    if (silent.length === 0) return 0;
    await this.boss.fail(RUN, silent, { message: "the instance running it stopped answering" });
    for (const s of silent) this.beats.delete(`${s.id}/${s.retryCount}`);
    return silent.length;
  }

  /**
   * Gives back at once the chats whose run took its session's lease (the holder names the chat's key
   * as its `request`) and whose lease has since expired: their worker died holding it (a live one renews it), so the
   * heartbeat's silence need not be waited for. Only a job that started no later than the lease was
   * taken is given back: a retry that started afterwards is another attempt, left alone. Returns how many.
   */
  async reclaimChatsOfExpiredLeases(leasesTable: string): Promise<number> {
    const { rows } = await this.boss.getDb().executeSql(
      `select j.id from ${BOSS_SCHEMA}.job j join ${leasesTable} l on l.session_id = j.singleton_key
        where j.name = $1 and j.state = 'active' and l.expires_at < $2
          and (l.holder::jsonb ->> 'request') = (j.data ->> 'key')
          and j.started_on <= (l.holder::jsonb ->> 'since')::timestamptz`,
      [RUN, Date.now()],
    );
    const ids = (rows as Array<{ id: string }>).map((r) => r.id);
    if (ids.length === 0) return 0;
    await this.boss.fail(RUN, ids, { message: "the instance running it died holding its session" });
    return ids.length;
  }

  /** Stops taking jobs; jobs still being handled finish first. */
  async stopWorking(): Promise<void> {
    await Promise.all([
      this.boss.offWork(WAKE, { wait: true }).catch(() => undefined),
      this.boss.offWork(RUN, { wait: true }).catch(() => undefined),
    ]);
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 5_000 }).catch(() => undefined);
  }
}
