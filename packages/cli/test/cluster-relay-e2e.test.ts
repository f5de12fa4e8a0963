import { randomBytes, randomUUID } from "node:crypto";
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { delay, type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import mysql from "mysql2/promise";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { approveAll, readUi, user } from "../../server/test/helpers/ui-stream.js";
import {
  assistantTurns,
  driverOf,
  follow,
  type Instance,
  modelBody,
  postJson,
  postUiChat,
  type Received,
  startInstances,
  withClusterRig,
} from "./helpers/cluster.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { withStore } from "./helpers/seed.js";

/**
 * What only the driving instance of a run can do, asked of another: a permission ask answered, a
 * plan approved, an abort and a steering message sent through an instance that does not drive the
 * run, and a SIGTERM of the driver handing its run to another. A chat is queued, so whichever
 * instance takes it drives it: each test finds the driver from the session's lease. Also
 * `--cluster` refused on a store that cannot share a cluster, and the health route.
 */

/** The MySQL/MariaDB server of the SQL tests; `--cluster` must refuse it without writing to it. */
const MYSQL_URL = process.env.ARBOR_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";

// Every bash call asks, so a run waits where a test answers it.
const e2e = setupCliE2e("arbor-cluster-relay-", {
  files: { "arbor.json": JSON.stringify({ permission: { bash: { "*": "ask" } } }) },
});

/** Reads a chat's stream on one instance until `until` matches an event (or it ends); returns the events so far and the reader. */
async function chatOn(url: string, message: string) {
  const res = await postJson(`${url}/api/chat`, { message });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: Array<Received["event"]> = [];
  const until = async (pred: (e: Received["event"]) => boolean): Promise<Received["event"] | undefined> => {
    for (;;) {
      const found = events.find(pred);
      if (found) return found;
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .find((l) => l.startsWith("data: "));
        buffer = buffer.slice(end + 2);
        if (data) events.push(JSON.parse(data.slice(6)));
      }
    }
  };
  const sessionId = res.headers.get("x-arbor-session-id") as string;
  return { sessionId, events, until, cancel: () => void reader.cancel().catch(() => undefined) };
}

/** The instance driving the session's run, and one that does not. */
async function driverAndOther(url: string, sessionId: string, instances: Instance[]): Promise<[Instance, Instance]> {
  const driver = await withStore(url, (s) => driverOf(s, sessionId, instances));
  return [driver, instances.find((i) => i !== driver) as Instance];
}

/** Asks an instance's health until it answers anything but 200 (a fetch that fails throws). */
async function healthOnceNotOk(url: string, deadline: number): Promise<{ status: number; body: unknown }> {
  while (performance.now() < deadline) {
    const res = await fetch(`${url}/api/health`);
    if (res.status !== 200) return { status: res.status, body: await res.json() };
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url}/api/health still answered 200`);
}

describe("arbor serve --cluster: any instance reaches any run", () => {
  it("an ask raised by a run on one instance is answered through another, and an abort sent to another stops it", async () => {
    await withClusterRig(e2e.workspace, async (db, rig) => {
      const step = (call: StepContext): readonly ScriptAction[] => {
        if (!modelBody(call).tools) return [text("Title")];
        const first = JSON.stringify((modelBody(call).messages ?? [])[1] ?? "");
        if (first.includes("slow")) return [text("Thinking "), delay(30_000), text("never")];
        return assistantTurns(call) === 0 ? [toolCall("bash", { command: "touch asked.txt" })] : [text("Touched.")];
      };
      const baseURL = await rig.fakeServer(Array.from({ length: 50 }, () => step));
      const args = { baseURL, home: join(e2e.dir, "home1"), store: db.url, takeoverMs: 3_000, cwd: e2e.workspace };
      const [a, b, c] = (await startInstances(rig, ["A", "B", "C"], args)) as [Instance, Instance, Instance];

      const health = await fetch(`${c.url}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: "ok", accepting: true });

      const asked = await chatOn(a.url, "touch the file");
      const ask = (await asked.until((e) => e.type === "permission_request")) as { id: string } | undefined;
      expect(ask).toBeDefined();
      const [, other] = await driverAndOther(db.url, asked.sessionId, [a, b, c]);
      // The other instance has no such ask of its own: it hands the answer to the one whose run waits.
      const answer = await postJson(`${other.url}/api/permissions/${ask?.id}`, { reply: "once" });
      expect(answer.status).toBe(200);
      expect((await asked.until((e) => e.type === "done" || e.type === "error"))?.type).toBe("done");
      await expect(access(join(e2e.workspace, "asked.txt"))).resolves.toBeUndefined();
      const unknown = await postJson(`${c.url}/api/permissions/no-such-ask`, { reply: "once" });
      expect(unknown.status).toBe(404);

      const slow = await chatOn(a.url, "slow: take your time");
      const first = await slow.until((e) => e.type === "token");
      const [, elsewhere] = await driverAndOther(db.url, slow.sessionId, [a, b, c]);
      const aborted = await fetch(`${elsewhere.url}/api/sessions/${first?.session_id}/abort`, { method: "POST" });
      expect(await aborted.json()).toEqual({ aborted: true });
      const end = (await slow.until((e) => e.type === "done" || e.type === "error")) as { type: string; code?: string };
      expect(end).toMatchObject({ type: "error", code: "aborted" });
    });
  }, 90_000);

  it("a useChat approval sent to another instance than the one running the chat is relayed to its run", async () => {
    await withClusterRig(e2e.workspace, async (db, rig) => {
      const step = (call: StepContext): readonly ScriptAction[] => {
        if (!modelBody(call).tools) return [text("Title")];
        return assistantTurns(call) === 0 ? [toolCall("bash", { command: "touch ui-approved.txt" })] : [text("Touched it.")];
      };
      const baseURL = await rig.fakeServer(Array.from({ length: 20 }, () => step));
      const args = { baseURL, home: join(e2e.dir, "home-ui"), store: db.url, takeoverMs: 3_000, cwd: e2e.workspace };
      const [a, c] = (await startInstances(rig, ["A", "C"], args)) as [Instance, Instance];
      const id = randomUUID();
      const post = (url: string, messages: unknown[]) => postUiChat(url, id, messages);
      const first = await readUi(await post(a.url, [user("touch the file")]));
      expect(first.chunks.some((ch) => ch.type === "tool-approval-request")).toBe(true);
      const answered = approveAll(first.message);
      // C has no ask of its own; it hands the answer to A, whose run waits, and streams the rest from the log.
      const done = await readUi(await post(c.url, [user("touch the file"), answered]), answered);
      expect(done.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
      await expect(access(join(e2e.workspace, "ui-approved.txt"))).resolves.toBeUndefined();
    });
  }, 90_000);

  it("a plan a run on one instance waits to have approved is answered through another", async () => {
    const planned = join(e2e.dir, "planned");
    await mkdir(planned, { recursive: true });
    await writeFile(join(planned, "arbor.json"), JSON.stringify({ plan: { requireApproval: true } }));
    await withClusterRig(planned, async (db, rig) => {
      const step = (call: StepContext): readonly ScriptAction[] => {
        if (!modelBody(call).tools) return [text("Title")];
        return assistantTurns(call) === 0
          ? [toolCall("plan_create", { title: "Tidy up", steps: ["Look around", "Check"] })]
          : [text("Understood, nothing changed.")];
      };
      const baseURL = await rig.fakeServer(Array.from({ length: 20 }, () => step));
      const args = { baseURL, home: join(e2e.dir, "home-plan"), store: db.url, takeoverMs: 3_000, cwd: planned };
      const [a, c] = (await startInstances(rig, ["A", "C"], args)) as [Instance, Instance];
      const run = await chatOn(a.url, "tidy the workspace");
      const request = (await run.until((e) => e.type === "plan_approval_request")) as
        | { plan_id: string; session_id: string }
        | undefined;
      expect(request).toBeDefined();
      const [, other] = await driverAndOther(db.url, run.sessionId, [a, c]);
      const answer = await postJson(`${other.url}/api/plan/approve`, {
        plan_id: request?.plan_id,
        approved: false,
        reason: "not today",
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
      expect(await answer.json()).toEqual({
        plan_id: request?.plan_id,
        session_id: request?.session_id,
        approved: false,
        resumed: false,
      });
      const end = await run.until((e) => e.type === "done" || e.type === "error");
      expect(end?.type).toBe("done");
      expect(run.events.filter((e) => e.type === "plan_updated")).toEqual([]);
      const path = await withStore(db.url, (s) => s.getActivePath(request?.session_id as string));
      expect(JSON.stringify(path)).toContain("not today");
    });
  }, 90_000);

  it("a message sent to one instance for a run driven on another is recorded and read by that run at its next step", async () => {
    await withClusterRig(e2e.workspace, async (db, rig) => {
      // What the model was sent after the tool's turn: the steering message must be in it.
      let afterTool: Array<{ role: string; content: unknown }> | undefined;
      const step = (call: StepContext): readonly ScriptAction[] => {
        if (!modelBody(call).tools) return [text("Title")];
        if (assistantTurns(call) === 0) return [toolCall("bash", { command: "touch steered.txt" })];
        afterTool = modelBody(call).messages as typeof afterTool;
        return [text("Going blue.")];
      };
      const baseURL = await rig.fakeServer(Array.from({ length: 20 }, () => step));
      const args = { baseURL, home: join(e2e.dir, "home-steer"), store: db.url, takeoverMs: 3_000, cwd: e2e.workspace };
      const [a, c] = (await startInstances(rig, ["A", "C"], args)) as [Instance, Instance];
      const run = await chatOn(a.url, "paint it red");
      // The run is held on A by its permission ask, so the message surely arrives mid-run.
      const ask = (await run.until((e) => e.type === "permission_request")) as { id: string; session_id: string } | undefined;
      expect(ask).toBeDefined();
      const sessionId = ask?.session_id as string;
      const [driver, other] = await driverAndOther(db.url, sessionId, [a, c]);
      const steered = await postJson(`${other.url}/api/chat`, { message: "Use blue.", session_id: sessionId });
      expect(steered.status, await steered.clone().text()).toBe(202);
      expect(await steered.json()).toMatchObject({ steered: true, session_id: sessionId });
      const answer = await postJson(`${driver.url}/api/permissions/${ask?.id}`, { reply: "once" });
      expect(answer.status).toBe(200);
      expect((await run.until((e) => e.type === "done" || e.type === "error"))?.type).toBe("done");
      const last = afterTool?.at(-1);
      expect(last?.role).toBe("user");
      expect(JSON.stringify(last?.content)).toContain("Use blue.");
      const users = await withStore(db.url, async (s) =>
        (await s.getActivePath(sessionId)).filter((e) => e.type === "message" && e.message.role === "user"),
      );
      expect(users).toHaveLength(2);
      expect(JSON.stringify(users[1])).toContain("Use blue.");
    });
  }, 90_000);

  it("SIGTERM of the driver hands its run to another instance, which finishes it; a watcher on the third sees it through; the driver's health and new chats get 503 meanwhile", async () => {
    await withClusterRig(e2e.workspace, async (db, rig) => {
      let locker: pg.Client | undefined;
      try {
        // The first answer is slow, so the run is in flight when A stops; a woken run gets a quick one.
        let calls = 0;
        const step = (call: StepContext): readonly ScriptAction[] => {
          if (!modelBody(call).tools) return [text("Title")];
          calls++;
          return calls === 1 ? [text("Working "), delay(60_000), text("never")] : [text("Finished elsewhere.")];
        };
        const baseURL = await rig.fakeServer(Array.from({ length: 20 }, () => step));
        const args = { baseURL, home: join(e2e.dir, "home2"), store: db.url, takeoverMs: 20_000, cwd: e2e.workspace };
        const [a, b, c] = (await startInstances(rig, ["A", "B", "C"], args)) as [Instance, Instance, Instance];
        const run = await chatOn(a.url, "work on it");
        const first = await run.until((e) => e.type === "token");
        const sessionId = first?.session_id as string;
        run.cancel();
        const [driver] = await driverAndOther(db.url, sessionId, [a, b, c]);
        const [next, third] = [a, b, c].filter((i) => i !== driver) as [Instance, Instance];
        const watcher = follow(sessionId, () => third, performance.now() + 60_000);
        // Shutdown looks up the runs the driver drives in the sessions table: a lock held on it keeps the
        // driver in the middle of handing them back, long enough to ask its health then.
        locker = new pg.Client({ connectionString: db.url });
        locker.on("error", () => undefined);
        await locker.connect();
        await locker.query("begin");
        await locker.query("lock table arbor_sessions in access exclusive mode");
        expect((await fetch(`${driver.url}/api/health`)).status).toBe(200);
        const stopping = performance.now();
        driver.cli.child.kill("SIGTERM");
        const health = await healthOnceNotOk(driver.url, performance.now() + 20_000);
        expect(health).toMatchObject({ status: 503, body: { status: "unavailable", accepting: false } });
        // A chat that still reaches the driver now is refused with the same 503, not queued there.
        const late = await postJson(`${driver.url}/api/chat`, { message: "too late for this instance" });
        expect(late.status).toBe(503);
        expect(await late.json()).toMatchObject({ error: { code: "instance_unavailable" } });
        await locker.query("rollback");
        const exited = await driver.cli.result;
        expect(exited.code).toBe(0);
        expect(exited.stderr).toContain(`handed 1 run(s) to the other instances: ${sessionId}`);
        const seen = await watcher;
        const handedIn = performance.now() - stopping;
        expect(seen.events.at(-1)?.event.type).toBe("done");
        const taker = [next, third].find((i: Instance) =>
          i.lines.some((l) => l.line.includes(`took over the run of session ${sessionId}`)),
        );
        expect(taker).toBeDefined();
        // Well within the 20 s lease: the run was handed back, not left to expire.
        expect(handedIn).toBeLessThan(15_000);
        const status = await withStore(db.url, async (s) => (await s.getSession(sessionId))?.status);
        expect(status).toBe("completed");
      } finally {
        await locker?.end().catch(() => undefined);
      }
    });
  }, 90_000);

  it("--cluster on SQLite or the file store is refused, saying why, and creates nothing", async () => {
    const home = join(e2e.dir, "home3");
    const sqlite = join(e2e.dir, "one.db");
    const cases: Array<[string[], RegExp]> = [
      [
        ["--store", `sqlite:${sqlite}`, "--create"],
        /--cluster needs a PostgreSQL store .*not the sqlite store .*one\.db: the sqlite store lives on one machine, so only one server can use it\. Without --cluster, run one arbor serve per store/,
      ],
      // No --store: the default file store in ARBOR_HOME.
      [
        [],
        /--cluster needs a PostgreSQL store .*not the file store .*home3: the file store lives on one machine, so only one server can use it/,
      ],
      [["--store", join(e2e.dir, "sessions"), "--create"], /not the file store .*sessions: the file store lives on one machine/],
    ];
    for (const [store, message] of cases) {
      const r = await e2e.arbor(["serve", "--cluster", "--port", "0", ...store], { home, cwd: e2e.workspace });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    for (const path of [home, sqlite, join(e2e.dir, "sessions")]) await expect(access(path)).rejects.toThrow();
  });

  it("--cluster on MySQL or MariaDB is refused, saying why, and leaves the database untouched", async () => {
    const name = `arbor_cli_${randomBytes(6).toString("hex")}`;
    const admin = await mysql.createConnection(MYSQL_URL);
    await admin.query(`create database \`${name}\``);
    try {
      for (const scheme of ["mysql:", "mariadb:"]) {
        const spec = `${MYSQL_URL.replace(/^mysql:/, scheme)}/${name}`;
        const r = await e2e.arbor(["serve", "--cluster", "--port", "0", "--store", spec], {
          home: join(e2e.dir, "home4"),
          cwd: e2e.workspace,
        });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(
          /--cluster needs a PostgreSQL store .*not the mysql store .*: MySQL has no LISTEN\/NOTIFY for live events across instances and pg-boss \(the run queue\) needs PostgreSQL/,
        );
      }
      const [tables] = await admin.query("select table_name from information_schema.tables where table_schema = ?", [name]);
      expect(tables).toEqual([]);
    } finally {
      await admin.query(`drop database if exists \`${name}\``);
      await admin.end();
    }
  });
});
