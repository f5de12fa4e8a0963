import { join } from "node:path";
import { type AnyToolDefinition, openStore, type StoreSpec } from "@arbor/core";
import { type Script, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { RUN_EVENT_PREFIX } from "../../core/src/events/run-event-records.js";
import { gateTool, startInstance, workspaceDir } from "./helpers/server.js";
import { readSse, type SseMessage } from "./helpers/sse.js";

/** One server instance over a store: nothing shared in memory with another instance, as a new process. */
const instance = (spec: string | StoreSpec, root: string, script: Script, tools: AnyToolDefinition[] = []) =>
  startInstance(root, { store: spec, script, tools, runtime: { clock: { now: () => Date.now(), sleep: async () => {} } } });

const gatedScript: Script = [
  [text("before the gate", { chunks: 4 }), toolCall("gate", {}, { id: "g1" })],
  [text("after the gate", { chunks: 4 })],
];

/** Server A with a run held at the gate, and what a client read of it until then. */
async function heldAtGate(spec: string, root: string) {
  const gate = gateTool();
  const a = await instance(spec, root, gatedScript, [gate.tool]);
  const before = await readSse(await a.api("/api/chat", { json: { message: "go" } }), (m) =>
    m.event.type === "tool_start" ? false : undefined,
  );
  return { gate, a, before, sessionId: before[0]?.event.session_id as string };
}

const stores = [
  { name: "file", spec: (root: string) => join(root, "store") },
  { name: "sqlite", spec: (root: string) => `sqlite:${join(root, "arbor.db")}` },
];

/** The run events of a session as its event log holds them, through a fresh store handle. */
async function loggedRunEvents(spec: string): Promise<Array<{ id: string; event: unknown }>> {
  const store = await openStore(spec);
  try {
    const [session] = (await store.listSessions()).sessions;
    const records = await store.listEvents(session?.id as string, { limit: 10_000 });
    return records
      .filter((r) => r.type.startsWith(RUN_EVENT_PREFIX))
      .map((r) => ({ id: String(r.id), event: { type: r.type.slice(RUN_EVENT_PREFIX.length), ...r.data } }));
  } finally {
    await store.close();
  }
}

const idsOf = (messages: SseMessage[]) => messages.map((m) => m.id);

describe.each(stores)("SSE resume across a server restart ($name store)", ({ spec: specOf }) => {
  it("a client that reconnects to a new server with Last-Event-ID gets every later event once, in order", async () => {
    const root = workspaceDir();
    const spec = specOf(root);
    const { a, before, sessionId } = await heldAtGate(spec, root);
    // Server A goes away (the run with it).
    expect(before.length).toBeGreaterThan(3);
    await a.stop();

    const b = await instance(spec, root, []);
    const lastId = before.at(-1)?.id as string;
    const after = await readSse(await b.api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": lastId } }));
    // The rest of the run as A recorded it: the gate's end and the abort that ended the run.
    expect(after.length).toBeGreaterThan(0);
    expect(after.at(-1)?.event).toMatchObject({ type: "error", code: "aborted" });
    const seen = [...before, ...after];
    const logged = await loggedRunEvents(spec);
    expect(idsOf(seen)).toEqual(logged.map((e) => e.id));
    expect(seen.map((m) => m.event)).toEqual(logged.map((e) => e.event));
    expect(new Set(idsOf(seen)).size).toBe(seen.length);

    // The same through POST /api/chat, as a client re-sending its request with the session does.
    const viaChat = await b.api("/api/chat", {
      json: { message: "go", session_id: sessionId },
      headers: { "last-event-id": lastId },
    });
    expect(idsOf(await readSse(viaChat))).toEqual(idsOf(after));
    // Once the client has the last event there is nothing more; an id the log never issued is 410.
    const again = await b.api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": after.at(-1)?.id as string } });
    expect(again.status).toBe(204);
    const unknown = await b.api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": "999999" } });
    expect(unknown.status).toBe(410);

    // The session goes on on B: its next run's ids continue after A's.
    const next = await b.api("/api/chat", { json: { message: "again", session_id: sessionId } });
    expect(next.status).toBe(200);
    const nextRun = await readSse(next);
    expect(Number(nextRun[0]?.id)).toBeGreaterThan(Number(after.at(-1)?.id));
  });

  it("a second server over the same store streams a run the first one drives: the backlog, then live events to the end", async () => {
    const root = workspaceDir();
    const spec = specOf(root);
    const { gate, before, sessionId } = await heldAtGate(spec, root);
    const b = await instance(spec, root, []);
    const firstId = Number(before[0]?.id) - 1;
    let released = false;
    const fromB = readSse(
      await b.api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": String(firstId) } }),
      (m) => {
        // B has caught up with what A sent before the gate: let A's run go on.
        if (!released && m.id === before.at(-1)?.id) {
          released = true;
          gate.release();
        }
        return undefined;
      },
    );
    const all = await fromB;
    expect(released).toBe(true);
    expect(all.at(-1)?.event.type).toBe("done");
    expect(idsOf(all.slice(0, before.length))).toEqual(idsOf(before));
    expect(idsOf(all)).toEqual((await loggedRunEvents(spec)).map((e) => e.id));
    expect(new Set(idsOf(all)).size).toBe(all.length);
  });
});

describe("SSE resume and the event log's retention", () => {
  it("resuming from an id the log has dropped is 410 events_expired; from a kept one, the rest once", async () => {
    const root = workspaceDir();
    const spec: StoreSpec = { kind: "file", dir: join(root, "store"), maxEventsPerSession: 10 };
    const a = await instance(spec, root, [[text("a long answer in many small pieces", { chunks: 40 })]]);
    const run = await readSse(await a.api("/api/chat", { json: { message: "go" } }));
    const sessionId = run[0]?.event.session_id as string;
    expect(run.at(-1)?.event.type).toBe("done");
    await a.stop();

    const b = await instance(spec, root, []);
    const dropped = await b.api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": run[0]?.id as string } });
    expect(dropped.status).toBe(410);
    expect(((await dropped.json()) as { error: { code: string } }).error.code).toBe("events_expired");
    const kept = run.at(-4)?.id as string;
    const rest = await readSse(await b.api(`/api/sessions/${sessionId}/stream?last_event_id=${kept}`));
    expect(idsOf(rest)).toEqual(idsOf(run.slice(-3)));
  });
});
