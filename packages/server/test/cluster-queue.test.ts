import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArborError, type ArborErrorCode, type WatchMessage } from "@arbor/core";
import { text } from "@arbor/testkit";
import pg from "pg";
import { PgBoss } from "pg-boss";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../src/index.js";
import { clusterRig } from "./helpers/cluster-instance.js";
import { watchSocket } from "./helpers/watch-socket.js";

/**
 * One cluster instance in process over a database of its own (pg-boss's queue lives in it, so no
 * other test's workers take these jobs): what a queued chat does when its session is driven by
 * someone else at the moment a worker takes it.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const { database, postgresStore, instance } = clusterRig(cleanups);

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

/**
 * What an instance that dies with a chat leaves in the queue: it took the chat `chat-1` of the
 * session (the job is active, with pg-boss's own silence check at `heartbeatSeconds`) and stopped.
 */
async function takenByDyingInstance(url: string, sessionId: string, heartbeatSeconds: number): Promise<void> {
  const dying = new PgBoss({ connectionString: url, schema: "pgboss" });
  dying.on("error", () => undefined);
  await dying.start();
  await dying.createQueue("arbor-run", {
    policy: "singleton",
    retryLimit: 1_000,
    retryDelay: 1,
    heartbeatSeconds,
    expireInSeconds: 24 * 3_600,
  });
  await dying.send("arbor-run", { sessionId, key: "chat-1", message: "Answer me." }, { singletonKey: sessionId });
  expect(await dying.fetch("arbor-run")).toHaveLength(1);
  await dying.stop({ graceful: false, close: true });
}

describe("a queued chat whose session another driver holds", () => {
  it("waits its turn without writing anything to the session, then runs once", async () => {
    const { url, store, cwd, node, runtime } = await instance([[text("Answered once.")]]);

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

describe("runs the cluster starts record themselves", () => {
  it("a taken chat and a woken session each reach the server's watchers from trace_started to trace_completed", async () => {
    const { store, cwd, node, runtime } = await instance([[text("Taken from the queue.")], [text("Woken and finished.")]]);
    const listening = await createServer({ runtime, cluster: node }).listen({ port: 0 });
    cleanups.push(() => listening.close());
    const names = (messages: WatchMessage[]) =>
      messages.flatMap((m) =>
        m.event === "connected" ? [] : [m.event === "message_added" ? `message_added:${m.message.role}` : m.event],
      );

    const { id: chatted } = await store.createSession({ cwd });
    const chatWatcher = watchSocket(`${listening.url}/api/traces/${chatted}/watch`);
    await chatWatcher.when((m) => m.event === "connected");
    await node.queueChat({ message: "Answer me.", sessionId: chatted });
    await chatWatcher.when((m) => m.event === "trace_completed");
    expect(names(chatWatcher.received)).toEqual([
      "trace_started",
      "message_added:user",
      "message_added:assistant",
      "trace_completed",
    ]);
    chatWatcher.ws.close();

    // What a process killed mid-run leaves: stored running, nobody holding it, its prompt unanswered.
    const { id: cut } = await store.createSession({ status: "running", agentId: "build", cwd });
    await store.appendMessage(cut, { role: "user", content: [{ type: "text", text: "finish this" }] });
    const wakeWatcher = watchSocket(`${listening.url}/api/traces/${cut}/watch`);
    await wakeWatcher.when((m) => m.event === "connected");
    expect(await node.sweep()).toBe(1);
    await wakeWatcher.when((m) => m.event === "trace_completed");
    expect(names(wakeWatcher.received)).toEqual(["trace_started", "message_added:assistant", "trace_completed"]);
    expect(wakeWatcher.logged()[0]).toMatchObject({ event: "trace_started", kind: "wake" });
    expect(wakeWatcher.logged().at(-1)).toMatchObject({ event: "trace_completed", status: "done" });
    wakeWatcher.ws.close();
  }, 60_000);
});

describe("a chat taken by an instance that died before its run started", () => {
  it("goes to another instance after the takeover time, not after pg-boss's 10 s heartbeat floor", async () => {
    const url = await database();
    const store = await postgresStore(url);
    const cwd = mkdtempSync(join(tmpdir(), "arbor-cluster-queue-"));
    cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
    const { id } = await store.createSession({ cwd });

    // The instance that dies: it takes the chat's job from the queue and never runs nor heartbeats it.
    await takenByDyingInstance(url, id, 10);

    const taken = performance.now();
    const log: string[] = [];
    await instance([[text("Answered by the survivor.")]], { url, store, cwd, sweepMs: 200, log });
    for (;;) {
      const meta = await store.getSession(id);
      if (meta?.status === "completed") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const waited = performance.now() - taken;
    expect(log.some((l) => l.includes("gave 1 chat(s) of a silent instance back to the queue"))).toBe(true);
    expect(waited).toBeLessThan(9_000);
    const users = (await store.listEntries(id)).filter((e) => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(1);
  }, 60_000);
});

describe("a chat whose instance died while its run held the session, before writing the message", () => {
  it("goes back to the queue once the run's lease has expired, without waiting for the job's heartbeat to fall silent", async () => {
    const url = await database();
    const store = await postgresStore(url);
    const cwd = mkdtempSync(join(tmpdir(), "arbor-cluster-queue-"));
    cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
    // Not stored as running: the run died before it wrote anything, so only the lease tells.
    const { id } = await store.createSession({ agentId: "build", cwd });

    // The instance that dies: it takes the chat's job, its run takes the session's lease, and then
    // nothing more (no message written, no heartbeat, no renewal).
    await takenByDyingInstance(url, id, 30);
    const holder = {
      pid: 999_999,
      host: "a-host-that-died",
      purpose: "arbor serve --cluster",
      request: "chat-1",
      since: new Date().toISOString(),
      token: "dead",
    };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("insert into arbor_leases (session_id, token, holder, expires_at) values ($1, $2, $3, $4)", [
      id,
      "dead",
      JSON.stringify(holder),
      Date.now() - 1,
    ]);
    await client.end();

    const taken = performance.now();
    const log: string[] = [];
    // The heartbeat's silence alone would take a minute here (and pg-boss's own check 30 s).
    await instance([[text("Answered by the survivor.")], [text("A title")]], {
      url,
      store,
      cwd,
      sweepMs: 200,
      silentChatMs: 60_000,
      log,
    });
    await expect.poll(async () => (await store.getSession(id))?.status, { timeout: 20_000, interval: 100 }).toBe("completed");
    expect(performance.now() - taken).toBeLessThan(8_000);
    expect(log.some((l) => l.includes("gave 1 chat(s) whose instance died holding the session back"))).toBe(true);
    const users = (await store.listEntries(id)).filter((e) => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(1);
  }, 60_000);
});

describe("a queued chat's principal", () => {
  it("is recorded on the new session (createdBy) and the message (sentBy) by the instance that runs it", async () => {
    const { store, node } = await instance([[text("Queued and answered.")], [text("A title")]]);
    const principal = { id: "tok_queued", scopes: ["run" as const] };
    const ref = await node.queueChat({ message: "From a token.", principal });
    await expect
      .poll(async () => (await store.getSession(ref.sessionId))?.status, { timeout: 30_000, interval: 200 })
      .toBe("completed");
    expect((await store.getSession(ref.sessionId))?.createdBy).toBe("tok_queued");
    const sent = (await store.listEntries(ref.sessionId)).flatMap((e) =>
      e.type === "message" && e.message.role === "user" ? [(e.message as { sentBy?: string }).sentBy] : [],
    );
    expect(sent).toEqual(["tok_queued"]);
  }, 60_000);
});

describe("a queued chat whose run fails before its message is written", () => {
  it.each<[string, ArborErrorCode, string]>([
    ["the store fails it", "io_error", "The postgres store failed to append: Connection terminated."],
    ["its lease is lost (its write fenced off)", "session_busy", "The session's lease was lost."],
  ])(
    "%s: goes back to the queue and runs once it can; the acknowledged message is not lost",
    async (_, code, message) => {
      const url = await database();
      const real = await postgresStore(url);
      // The store refuses the first user message as an unreachable database would, after its own retries.
      let refused = 0;
      const store = new Proxy(real, {
        get(target, prop, receiver) {
          if (prop === "appendMessage") {
            return (...args: Parameters<typeof real.appendMessage>) => {
              if (refused++ === 0) {
                return Promise.reject(new ArborError(code, message));
              }
              return target.appendMessage(...args);
            };
          }
          const value = Reflect.get(target, prop, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const cwd = mkdtempSync(join(tmpdir(), "arbor-cluster-queue-"));
      cleanups.push(async () => rmSync(cwd, { recursive: true, force: true }));
      const { node } = await instance([[text("Answered after all.")], [text("A title")]], { url, store, cwd });
      const ref = await node.queueChat({ message: "Keep me." });
      await expect
        .poll(async () => (await real.getSession(ref.sessionId))?.status, { timeout: 30_000, interval: 100 })
        .toBe("completed");
      const users = (await real.listEntries(ref.sessionId)).filter((e) => e.type === "message" && e.message.role === "user");
      expect(users).toHaveLength(1);
      expect(JSON.stringify(users[0])).toContain("Keep me.");
      expect(refused).toBeGreaterThan(1);
    },
    60_000,
  );
});
