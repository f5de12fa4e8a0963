import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnyToolDefinition, builtinTools, createRuntime, openStore, type StoreSpec, WatchHub } from "@arbor/core";
import { MemoryBlobStore } from "@arbor/core/store";
import { type Script, scriptedModel, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_EVENT_PREFIX } from "../../core/src/events/run-event-records.js";
import { createServer } from "../src/index.js";
import { gateTool } from "./helpers/server.js";
import { readSse, type SseMessage } from "./helpers/sse.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * One server instance over a store path: its own store handle, runtime and HTTP listener, sharing
 * nothing in memory with another instance, as a new process would.
 */
async function instance(spec: string | StoreSpec, root: string, script: Script, tools: AnyToolDefinition[] = []) {
  const store = await openStore(spec);
  const blobs = new MemoryBlobStore();
  const runtime = createRuntime({
    store,
    watch: new WatchHub(store),
    cwd: join(root, "work"),
    arborHome: join(root, "home"),
    env: {},
    blobs,
    model: scriptedModel(script),
    tools: [...builtinTools({ blobs, arborHome: join(root, "home") }), ...tools],
    clock: { now: () => Date.now(), sleep: async () => {} },
  });
  const listening = await createServer({ runtime }).listen({ host: "127.0.0.1", port: 0 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await listening.close();
    await runtime.close();
    await store.close();
  };
  cleanups.push(stop);
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set("content-type", "application/json");
    return fetch(`${listening.url}${path}`, {
      ...rest,
      headers,
      ...(json === undefined ? {} : { method: "POST", body: JSON.stringify(json) }),
    });
  };
  return { store, runtime, api, stop };
}

function workspace(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "arbor-sse-restart-")));
  mkdirSync(join(root, "work"));
  mkdirSync(join(root, "home"));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

const gatedScript: Script = [
  [text("before the gate", { chunks: 4 }), toolCall("gate", {}, { id: "g1" })],
  [text("after the gate", { chunks: 4 })],
];

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
    const root = workspace();
    const spec = specOf(root);
    const gate = gateTool();
    const a = await instance(spec, root, gatedScript, [gate.tool]);
    // The client reads until the run waits at the gate, then server A goes away (the run with it).
    const before = await readSse(await a.api("/api/chat", { json: { message: "go" } }), (m) =>
      m.event.type === "tool_start" ? false : undefined,
    );
    const sessionId = before[0]?.event.session_id as string;
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
    const root = workspace();
    const spec = specOf(root);
    const gate = gateTool();
    const a = await instance(spec, root, gatedScript, [gate.tool]);
    const before = await readSse(await a.api("/api/chat", { json: { message: "go" } }), (m) =>
      m.event.type === "tool_start" ? false : undefined,
    );
    const sessionId = before[0]?.event.session_id as string;
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
    const root = workspace();
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
