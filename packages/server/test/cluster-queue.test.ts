import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, openStore, type Store } from "@arbor/core";
import { scriptedModel, text } from "@arbor/testkit";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../cli/test/helpers/postgres.js";
import { ClusterNode } from "../src/index.js";

/**
 * One cluster instance in process over a database of its own (pg-boss's queue lives in it, so no
 * other test's workers take these jobs): what a queued chat does when its session is driven by
 * someone else at the moment a worker takes it.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function database(): Promise<string> {
  const db = await createTestDatabase();
  cleanups.push(db.drop);
  return db.url;
}

async function postgresStore(url: string): Promise<Store> {
  const store = await openStore({ kind: "postgres", url });
  cleanups.push(() => store.close());
  return store;
}

/** The attempts pg-boss made at the session's chat job so far. */
async function attempts(url: string, sessionId: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "select coalesce(max(retry_count), 0)::int as n from pgboss.job where name = 'arbor-run' and singleton_key = $1",
      [sessionId],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

describe("a queued chat whose session another driver holds", () => {
  it("waits its turn without writing anything to the session, then runs once", async () => {
    const url = await database();
    const store = await postgresStore(url);
    const cwd = mkdtempSync(join(tmpdir(), "arbor-cluster-queue-"));
    cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
    const node = new ClusterNode({ url, sweepMs: 60_000, heartbeatSeconds: 10, cwd }, store, () => undefined);
    const runtime = createRuntime({
      store,
      cwd,
      model: scriptedModel([[text("Answered once.")]]),
      holderName: "cluster test",
      runEvents: node.runEvents,
    });
    await node.start(runtime);
    cleanups.push(() => node.close());

    const { id } = await store.createSession({ cwd });
    // Another process's run holds the session (as a CLI run would) when the worker takes the chat.
    const other = await postgresStore(url);
    const lease = await other.acquireLease(id, "another driver");
    const queued = await node.queueChat({ message: "Answer me.", sessionId: id });
    expect(queued.sessionId).toBe(id);
    // A retried job is found by polling, not by a notification: its first attempt was refused.
    while ((await attempts(url, id)) < 1) await new Promise((r) => setTimeout(r, 50));

    // The refused attempt left nothing: no run event (an error there would end every watcher's stream).
    const logged = () => store.listEvents(id, { after: 0 }).then((records) => records.map((r) => r.type));
    expect(await logged()).toEqual(["chat_queued"]);
    expect(await store.listEntries(id)).toEqual([]);

    await lease.release();
    const reader = await runtime.events.reader(id, { after: queued.after });
    const types: string[] = [];
    for (let step = await reader.next(); step.kind === "frames"; step = await reader.next()) {
      types.push(...step.frames.map((f) => (JSON.parse(f.json) as { type: string }).type));
      if (step.ended) break;
    }
    expect(types.at(-1)).toBe("done");
    expect(types).not.toContain("error");
    const users = (await store.listEntries(id)).filter((e) => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(1);
    expect(JSON.stringify(users[0])).toContain("requestKey");
  }, 60_000);
});
