import { PgBoss } from "pg-boss";

/** The queue of sessions to wake: one job per session at a time (`short`: one queued per key). */
const QUEUE = "arbor-wake";

/**
 * The durable dispatch of runs to wake, on pg-boss: a session found without a driver (its instance
 * died, or handed it back on shutdown) is queued once under its id, and exactly one instance's
 * worker takes each job. A worker that dies before finishing a job has it retried elsewhere.
 */
export class WakeQueue {
  private readonly boss: PgBoss;

  constructor(url: string, onError: (err: Error) => void) {
    this.boss = new PgBoss({ connectionString: url, useListenNotify: true, max: 3 });
    this.boss.on("error", onError);
  }

  async start(wake: (sessionId: string) => Promise<void>): Promise<void> {
    await this.boss.start();
    if (!(await this.boss.getQueue(QUEUE))) {
      await this.boss
        .createQueue(QUEUE, { policy: "short", notify: true, retryLimit: 20, retryDelay: 1, expireInSeconds: 60 })
        .catch(async (err: unknown) => {
          // Another instance created it at the same moment.
          if (!(await this.boss.getQueue(QUEUE))) throw err;
        });
    }
    await this.boss.work<{ sessionId: string }>(QUEUE, { pollingIntervalSeconds: 0.5, batchSize: 1 }, async (jobs) => {
      for (const job of jobs) await wake(job.data.sessionId);
    });
  }

  /** Queues a wake of the session unless one is queued already. */
  async send(sessionId: string): Promise<void> {
    await this.boss.send(QUEUE, { sessionId }, { singletonKey: sessionId });
  }

  /** Stops taking jobs; jobs still being handled finish first. */
  async stopWorking(): Promise<void> {
    await this.boss.offWork(QUEUE, { wait: true }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 5_000 }).catch(() => undefined);
  }
}
