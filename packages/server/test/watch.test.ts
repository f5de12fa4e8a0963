import type { WatchMessage } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, gateTool, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";
import { watchSocket } from "./helpers/watch-socket.js";

const isCompleted = (m: WatchMessage) => m.event === "trace_completed";

describe("WS /api/traces/:id/watch", () => {
  it("two watchers see the same sequence: connected, trace_started, message_added per message, trace_completed", async () => {
    const { api, url, store } = await startServer({ script: [[toolCall("list", {}, { id: "c1" })], [text("two files")]] });
    const created = (await (await api("/api/sessions", { json: {} })).json()) as { id: string };
    const a = watchSocket(`${url}/api/traces/${created.id}/watch`);
    const b = watchSocket(`${url}/api/traces/${created.id}/watch?since_event_id=0`);
    await Promise.all([a.when((m) => m.event === "connected"), b.when((m) => m.event === "connected")]);
    expect(a.received[0]).toEqual({
      event: "connected",
      trace_id: created.id,
      current_event_id: 0,
      first_event_id: 0,
      goal_tree: null,
    });

    const run = await readSse(await api("/api/chat", { json: { message: "what is here?", session_id: created.id } }));
    expect(run.at(-1)?.event.type).toBe("done");
    await Promise.all([a.when(isCompleted), b.when(isCompleted)]);
    expect(a.logged()).toEqual(b.logged());
    expect(a.logged().map((m) => (m.event === "message_added" ? `${m.event}:${m.message.role}` : m.event))).toEqual([
      "trace_started",
      "message_added:user",
      "message_added:assistant",
      "message_added:tool",
      "message_added:assistant",
      "trace_completed",
    ]);
    // The run's stream events share the session's log, so watch ids increase strictly but skip theirs:
    // they are exactly the ids of the watch records in the log.
    const watchIds = (await store.listEvents(created.id)).filter((r) => !r.type.startsWith("run.")).map((r) => r.id);
    expect(a.ids()).toEqual(watchIds);
    expect(watchIds).toHaveLength(6);
    // The runtime records the run; the server only streams it, so each event is in the log once.
    const runIds = (await store.listEvents(created.id)).filter((r) => r.type.startsWith("run.")).map((r) => String(r.id));
    expect(runIds).toEqual(run.map((m) => m.id));
    expect(a.logged().at(-1)).toMatchObject({ event: "trace_completed", status: "done", stats: { total_messages: 4 } });
    a.ws.close();
    b.ws.close();
  });

  it("a watcher that reconnects with since_event_id gets every later event exactly once, then live ones", async () => {
    const gate = gateTool();
    const { api, url } = await startServer({
      script: [[toolCall("gate", {}, { id: "g1" })], [text("after the gate")]],
      tools: [gate.tool],
    });
    const created = (await (await api("/api/sessions", { json: {} })).json()) as { id: string };
    const full = watchSocket(`${url}/api/traces/${created.id}/watch`);
    const first = watchSocket(`${url}/api/traces/${created.id}/watch`);
    await Promise.all([full.opened, first.opened]);
    await first.when((m) => m.event === "connected");
    const chat = api("/api/chat", { json: { message: "wait", session_id: created.id } }).then(readSse);
    // The first watcher leaves once the assistant's tool call is logged; the run waits at the gate.
    await first.when((m) => m.event === "message_added" && m.message.role === "assistant");
    first.ws.close();
    await first.closed;
    const seen = first.ids();
    const since = seen.at(-1) as number;

    gate.release();
    await full.when((m) => m.event === "message_added" && m.message.role === "tool");
    const again = watchSocket(`${url}/api/traces/${created.id}/watch?since_event_id=${since}`);
    await again.when(isCompleted);
    await full.when(isCompleted);
    expect((await chat).at(-1)?.event.type).toBe("done");

    expect(again.received[0]).toMatchObject({ event: "connected", first_event_id: 1 });
    expect([...seen, ...again.ids()]).toEqual(full.ids());
    expect(again.ids()[0]).toBe(full.ids().find((id) => id > since));
    full.ws.close();
    again.ws.close();
  });

  it("refuses bad ids, missing traces and plain GETs before upgrading", async () => {
    const { api, url } = await startServer();
    const missing = watchSocket(`${url}/api/traces/nosuch/watch`);
    await expect(missing.opened).rejects.toThrow(/404/);
    const bad = watchSocket(`${url}/api/traces/bad%20id/watch`);
    await expect(bad.opened).rejects.toThrow(/400/);
    const created = (await (await api("/api/sessions", { json: {} })).json()) as { id: string };
    const badSince = watchSocket(`${url}/api/traces/${created.id}/watch?since_event_id=-1`);
    await expect(badSince.opened).rejects.toThrow(/400/);
    expect(await errorOf(await api(`/api/traces/${created.id}/watch`))).toMatchObject({ status: 426, code: "upgrade_required" });
  });

  it("with a token, a watcher needs it: as a bearer header or access_token", async () => {
    const { api, url } = await startServer({ server: { token: "w-token" } });
    const created = (await (await api("/api/sessions", { json: {} })).json()) as { id: string };
    const none = watchSocket(`${url}/api/traces/${created.id}/watch`);
    await expect(none.opened).rejects.toThrow(/401/);
    const header = watchSocket(`${url}/api/traces/${created.id}/watch`, { authorization: "Bearer w-token" });
    await header.when((m) => m.event === "connected");
    const query = watchSocket(`${url}/api/traces/${created.id}/watch?access_token=w-token`);
    await query.when((m) => m.event === "connected");
    header.ws.close();
    query.ws.close();
    // access_token counts only on a WebSocket upgrade, never on a plain request.
    expect((await fetch(`${url}/api/sessions?access_token=w-token`)).status).toBe(401);
  });

  it("another site's page cannot open a watch (Origin is checked on the upgrade)", async () => {
    const { api, url } = await startServer();
    const created = (await (await api("/api/sessions", { json: {} })).json()) as { id: string };
    const evil = watchSocket(`${url}/api/traces/${created.id}/watch`, { origin: "https://evil.example" });
    await expect(evil.opened).rejects.toThrow(/403/);
  });
});
