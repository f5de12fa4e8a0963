import { RunEventSchema } from "@arbor/core";
import { error, scriptedModel, text, toolCall } from "@arbor/testkit";
import { EventSource } from "eventsource";
import { describe, expect, it, vi } from "vitest";
import { errorOf, gateTool, startServer } from "./helpers/server.js";
import { readSse, type SseMessage, tokenText, typesOf } from "./helpers/sse.js";

describe("POST /api/chat", () => {
  it("streams the run as SSE: id lines, session_id first, ending with done", async () => {
    const { api, store } = await startServer({ script: [[text("Hello there", { chunks: 3 })]] });
    const res = await api("/api/chat", { json: { message: "Say hello" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const messages = await readSse(res);

    expect(typesOf(messages)).toEqual(["llm_start", "token", "token", "token", "llm_end", "done"]);
    for (const m of messages) {
      expect(m.raw).toMatch(/^id: \d+\ndata: \{.*\}$/);
      expect(RunEventSchema.parse(m.event)).toEqual(m.event);
    }
    const ids = messages.map((m) => Number(m.id));
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as number);
    const sessionId = messages[0]?.event.session_id as string;
    expect(messages.every((m) => m.event.session_id === sessionId)).toBe(true);
    expect(tokenText(messages)).toBe("Hello there");
    const path = await store.getActivePath(sessionId);
    expect(path.map((e) => e.type === "message" && e.message.role)).toEqual(["user", "assistant"]);
  });

  it("continues a session given session_id; ids keep increasing across its runs", async () => {
    const { api, store } = await startServer({ script: [[text("one")], [text("two")]] });
    const first = await readSse(await api("/api/chat", { json: { message: "a" } }));
    const sessionId = first[0]?.event.session_id as string;
    const second = await readSse(await api("/api/chat", { json: { message: "b", session_id: sessionId } }));
    expect(second.every((m) => m.event.session_id === sessionId)).toBe(true);
    expect(Number(second[0]?.id)).toBeGreaterThan(Number(first.at(-1)?.id));
    expect((await store.getActivePath(sessionId)).length).toBe(4);
  });

  it("reads the session and the entry to continue from once per chat (admitting and starting are one step)", async () => {
    const { api, store } = await startServer({ script: [[text("one")], [text("two")]] });
    const first = await readSse(await api("/api/chat", { json: { message: "a" } }));
    const sessionId = first[0]?.event.session_id as string;
    const [userEntry] = await store.getActivePath(sessionId);
    const getSession = vi.spyOn(store, "getSession");
    const getEntry = vi.spyOn(store, "getEntry");
    const acquireLease = vi.spyOn(store, "acquireLease");
    const second = await readSse(
      await api("/api/chat", { json: { message: "b", session_id: sessionId, from_entry_id: userEntry?.id } }),
    );
    expect(second.at(-1)?.event.type).toBe("done");
    // Counted up to the run's start: the run itself reads the session as it goes.
    const beforeRun = (spy: { mock: { invocationCallOrder: number[] } }) =>
      spy.mock.invocationCallOrder.filter((n) => n < (acquireLease.mock.invocationCallOrder[0] ?? 0)).length;
    expect(acquireLease).toHaveBeenCalledTimes(1);
    expect(beforeRun(getSession)).toBe(1);
    expect(beforeRun(getEntry)).toBe(1);
  });

  it("with stream: false answers once the run ends, with its done event as JSON", async () => {
    const { api, store } = await startServer({ script: [[text("All done.")], [error(400, { message: "bad request" })]] });
    const res = await api("/api/chat", { json: { message: "Finish it", stream: false } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const done = (await res.json()) as { type: string; session_id: string; status: string; text: string; steps: number };
    expect(done).toMatchObject({ type: "done", status: "done", text: "All done.", steps: 1 });
    expect(res.headers.get("x-arbor-session-id")).toBe(done.session_id);
    expect((await store.getActivePath(done.session_id)).length).toBe(2);
    // A run that fails answers its error event, not a stream.
    const failed = await api("/api/chat", { json: { message: "again", session_id: done.session_id, stream: false } });
    expect(failed.status).toBe(200);
    expect(await failed.json()).toMatchObject({ type: "error", session_id: done.session_id });
    // Bad input is still refused before anything runs.
    const bad = await errorOf(await api("/api/chat", { json: { message: "x", stream: "no" } }));
    expect(bad.code).toBe("invalid_input");
  });

  it("is readable with the eventsource client (POST through its fetch option)", async () => {
    const { url } = await startServer({ script: [[text("streamed", { chunks: 4 })]] });
    const es = new EventSource(`${url}/api/chat`, {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          method: "POST",
          headers: { ...init.headers, "content-type": "application/json" },
          body: JSON.stringify({ message: "hi" }),
        }),
    });
    const received: Array<{ id: string; type: string }> = [];
    await new Promise<void>((resolve, reject) => {
      es.onerror = (e) => reject(new Error(`EventSource error: ${e.message}`));
      es.onmessage = (m) => {
        const event = JSON.parse(m.data) as { type: string };
        received.push({ id: m.lastEventId, type: event.type });
        if (event.type === "done") resolve();
      };
    });
    es.close();
    expect(received.map((r) => r.type)).toEqual(["llm_start", "token", "token", "token", "token", "llm_end", "done"]);
    expect(received.every((r) => /^\d+$/.test(r.id))).toBe(true);
  });

  it("ends with an error event when the run fails (unknown agent)", async () => {
    const { api } = await startServer({ script: [[text("x")]] });
    const messages = await readSse(await api("/api/chat", { json: { message: "hi", agent: "nobody" } }));
    expect(messages.at(-1)?.event.type).toBe("error");
    expect(messages.at(-1)?.id).toMatch(/^\d+$/);
  });

  it("rejects bad input with {error: {code, message}} and a 4xx status", async () => {
    const { api } = await startServer();
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, "invalid_input"],
      [{ message: "" }, 400, "invalid_input"],
      [{ message: "hi", session_id: "../etc" }, 400, "invalid_input"],
      [{ message: "hi", model: "no-slash" }, 400, "invalid_input"],
      [{ message: "hi", sesion_id: "typo" }, 400, "invalid_input"],
      [{ message: "hi", from_entry_id: "abc" }, 400, "invalid_input"],
      [{ message: "hi", session_id: "nosuch" }, 404, "session_not_found"],
    ];
    for (const [body, status, code] of cases) {
      const err = await errorOf(await api("/api/chat", { json: body }));
      expect({ body, status: err.status, code: err.code }).toEqual({ body, status, code });
    }
    const badId = await errorOf(await api("/api/chat", { json: { message: "hi", session_id: "../etc" } }));
    expect(badId.message).toContain("session_id: Session id");
    const badJson = await errorOf(
      await api("/api/chat", { method: "POST", body: "{not json", headers: { "content-type": "application/json" } }),
    );
    expect(badJson).toMatchObject({ status: 400, code: "invalid_json" });
    const notJson = await errorOf(
      await api("/api/chat", { method: "POST", body: '{"message":"hi"}', headers: { "content-type": "text/plain" } }),
    );
    expect(notJson).toMatchObject({ status: 415, code: "unsupported_media_type" });
  });

  it("continue from an entry: a user message is re-sent as a sibling, another entry becomes the parent", async () => {
    const { api, store } = await startServer({ script: [[text("first")], [text("second")], [text("third")]] });
    const first = await readSse(await api("/api/chat", { json: { message: "q1" } }));
    const sessionId = first[0]?.event.session_id as string;
    const [user, assistant] = await store.getActivePath(sessionId);

    // Picking the user message: the new message is its sibling (same parent, the root here).
    await readSse(await api("/api/chat", { json: { message: "q1 again", session_id: sessionId, from_entry_id: user?.id } }));
    const afterSibling = await store.getActivePath(sessionId);
    expect(afterSibling[0]?.parentId).toBeNull();
    expect(afterSibling[0]?.id).not.toBe(user?.id);
    expect(afterSibling.map((e) => e.type === "message" && e.message.content[0]).map((p) => p && "text" in p && p.text)).toEqual([
      "q1 again",
      "second",
    ]);

    // Picking the first assistant answer: the new message follows it.
    await readSse(await api("/api/chat", { json: { message: "q2", session_id: sessionId, from_entry_id: assistant?.id } }));
    const afterFollow = await store.getActivePath(sessionId);
    expect(afterFollow.slice(0, 2).map((e) => e.id)).toEqual([user?.id, assistant?.id]);
    expect(afterFollow).toHaveLength(4);

    const missing = await errorOf(
      await api("/api/chat", { json: { message: "x", session_id: sessionId, from_entry_id: "nosuchentry" } }),
    );
    expect(missing).toMatchObject({ status: 404, code: "entry_not_found" });
  });

  it("a second chat to a running session with busy: reject is 409 session_busy", async () => {
    const gate = gateTool();
    const { api } = await startServer({ script: [[toolCall("gate", {})], [text("done")]], tools: [gate.tool] });
    let sessionId = "";
    const reading = api("/api/chat", { json: { message: "wait" } }).then((res) =>
      readSse(res, (m) => {
        sessionId = m.event.session_id;
        if (m.event.type === "tool_start") {
          void api("/api/chat", { json: { message: "again", session_id: sessionId, busy: "reject" } }).then(async (second) => {
            const err = await errorOf(second);
            expect(err).toMatchObject({ status: 409, code: "session_busy" });
            gate.release();
          });
        }
        return undefined;
      }),
    );
    const messages = await reading;
    expect(messages.at(-1)?.event.type).toBe("done");
  });
});

describe("steering a running session over the API", () => {
  it("a chat to a running session is handed to its run (202), whose next model call reads it", async () => {
    const gate = gateTool();
    const model = scriptedModel([[toolCall("gate", {})], [text("going blue")]]);
    const { api, store } = await startServer({ runtime: { model }, tools: [gate.tool] });
    let sessionId = "";
    let steered: Promise<{ status: number; body: unknown }> | undefined;
    const messages = await readSse(await api("/api/chat", { json: { message: "paint it red" } }), (m) => {
      sessionId = m.event.session_id;
      if (m.event.type === "tool_start") {
        steered = api("/api/chat", { json: { message: "Use blue.", session_id: sessionId } }).then(async (res) => {
          const answer = { status: res.status, body: await res.json() };
          gate.release();
          return answer;
        });
      }
      return undefined;
    });
    expect(messages.at(-1)?.event.type).toBe("done");
    const answer = await steered;
    expect(answer).toMatchObject({ status: 202, body: { steered: true, session_id: sessionId } });
    const lastUser = model.calls[1]?.prompt.at(-1);
    expect(lastUser?.role).toBe("user");
    expect(JSON.stringify(lastUser?.content)).toContain("the user sent the following message:\\nUse blue.");
    const users = (await store.getActivePath(sessionId)).filter((e) => e.type === "message" && e.message.role === "user");
    expect(users).toHaveLength(2);
  });
});

describe("disconnect, resume and abort", () => {
  /** A run held twice by gates, so a test decides what happens while a client is away. */
  async function gatedRun() {
    const gate = gateTool();
    const server = await startServer({
      script: [
        [text("before the first gate", { chunks: 3 }), toolCall("gate", {}, { id: "g1" })],
        [text("between the gates", { chunks: 3 }), toolCall("gate", {}, { id: "g2" })],
        [text("after the gates", { chunks: 3 })],
      ],
      tools: [gate.tool],
    });
    return { ...server, gate };
  }

  /** Resolves with the messages read once `until` matches; the reader keeps going in `all`. */
  function watch(res: Promise<Response>) {
    const all: SseMessage[] = [];
    const waiters: Array<{ until: (m: SseMessage) => boolean; resolve: () => void }> = [];
    const done = res.then((r) =>
      readSse(r, (m) => {
        all.push(m);
        for (const w of waiters.splice(0)) {
          if (w.until(m)) w.resolve();
          else waiters.push(w);
        }
        return undefined;
      }),
    );
    return {
      all,
      done,
      when: (until: (m: SseMessage) => boolean) =>
        all.some(until) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ until, resolve })),
    };
  }

  const isToolStart = (callId: string) => (m: SseMessage) => m.event.type === "tool_start" && m.event.call_id === callId;

  it("a client that disconnects mid-run and reconnects with its last id gets every event exactly once", async () => {
    const { api, gate, runtime } = await gatedRun();
    // Client A disconnects as soon as the first gate's tool_start arrives.
    const before = await readSse(await api("/api/chat", { json: { message: "go" } }), (m) =>
      m.event.type === "tool_start" ? false : undefined,
    );
    const sessionId = before[0]?.event.session_id as string;
    // Client B reads the whole run without interruption, from the start of the run.
    const uninterrupted = watch(api(`/api/sessions/${sessionId}/stream`));
    await uninterrupted.when(isToolStart("g1"));

    // The run goes on while A is away (a disconnect never aborts): past the first gate to the second.
    expect(runtime.asks.pendingPermissions()).toEqual([]);
    gate.release();
    await uninterrupted.when(isToolStart("g2"));

    // A reconnects with its last id: the backlog first, then live events after the second gate opens.
    const lastId = before.at(-1)?.id as string;
    const resumed = watch(api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": lastId } }));
    await resumed.when(isToolStart("g2"));
    gate.release();
    const after = await resumed.done;
    const full = await uninterrupted.done;

    const seen = [...before, ...after];
    expect(seen.map((m) => m.id)).toEqual(full.map((m) => m.id));
    expect(seen.map((m) => m.event)).toEqual(full.map((m) => m.event));
    expect(new Set(seen.map((m) => m.id)).size).toBe(seen.length);
    expect(full.at(-1)?.event.type).toBe("done");
    expect(typesOf(full).filter((t) => t === "tool_start")).toHaveLength(2);
  });

  it("resumes through POST /api/chat with Last-Event-ID, as an EventSource re-sending its request does", async () => {
    const { api, gate } = await gatedRun();
    const before = await readSse(await api("/api/chat", { json: { message: "go" } }), (m) =>
      m.event.type === "tool_start" ? false : undefined,
    );
    const lastId = before.at(-1)?.id as string;
    const resumed = watch(api("/api/chat", { json: { message: "go" }, headers: { "last-event-id": lastId } }));
    gate.release();
    await resumed.when(isToolStart("g2"));
    gate.release();
    const after = await resumed.done;
    expect(after[0]?.event.type).toBe("tool_end");
    expect(Number(after[0]?.id)).toBeGreaterThan(Number(lastId));
    expect(after.at(-1)?.event.type).toBe("done");
    // Once the client has the final event, a further resume has nothing to send.
    const again = await api("/api/chat", { json: { message: "go" }, headers: { "last-event-id": after.at(-1)?.id as string } });
    expect(again.status).toBe(204);
  });

  it("the eventsource client reconnects by itself and resumes from its last id", async () => {
    const { url, api, gate } = await gatedRun();
    const first = await readSse(await api("/api/chat", { json: { message: "go" } }), (m) =>
      m.event.type === "tool_start" ? false : undefined,
    );
    const sessionId = first[0]?.event.session_id as string;
    const received: Array<{ id: string; type: string; callId?: string }> = [];
    const lastEventIds: Array<string | null> = [];
    const es = new EventSource(`${url}/api/sessions/${sessionId}/stream`, {
      fetch: async (input, init) => {
        lastEventIds.push(new Headers(init.headers).get("last-event-id"));
        const res = await fetch(input, init);
        if (lastEventIds.length > 1) {
          // Reconnected: let the run go on past the first gate.
          gate.release();
          return res;
        }
        // The first connection is cut after its first chunk, as a flaky network would (and asks for a quick retry).
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        const { value } = await reader.read();
        await reader.cancel();
        const head = new TextEncoder().encode("retry: 20\n\n");
        return new Response(new Blob([head, value ?? new Uint8Array()]), { status: res.status, headers: res.headers });
      },
    });
    await new Promise<void>((resolve) => {
      es.onmessage = (m) => {
        const event = JSON.parse(m.data) as { type: string; call_id?: string };
        received.push({ id: m.lastEventId, type: event.type, ...(event.call_id ? { callId: event.call_id } : {}) });
        if (event.type === "tool_start" && event.call_id === "g2") gate.release();
        if (event.type === "done") resolve();
      };
    });
    es.close();

    expect(lastEventIds).toHaveLength(2);
    expect(lastEventIds[0]).toBeNull();
    const firstConnection = received.filter((r) => Number(r.id) <= Number(lastEventIds[1]));
    expect(lastEventIds[1]).toBe(firstConnection.at(-1)?.id);
    // Compared with the whole run read again from its start: the same ids, each once.
    const full = await readSse(await api(`/api/sessions/${sessionId}/stream`));
    expect(received.map((r) => r.id)).toEqual(full.map((m) => m.id));
  });

  it("a disconnect does not abort the run; the abort route does", async () => {
    const { api, gate, store } = await gatedRun();
    const before = await readSse(await api("/api/chat", { json: { message: "go" } }), (m) =>
      m.event.type === "tool_start" ? false : undefined,
    );
    const sessionId = before[0]?.event.session_id as string;
    const watcher = watch(
      api(`/api/sessions/${sessionId}/stream`, { headers: { "last-event-id": before.at(-1)?.id as string } }),
    );
    gate.release();
    await watcher.when(isToolStart("g2"));
    // Still running after the client left: the second gate was reached.
    expect(gate.calls).toBe(2);

    const abort = await api(`/api/sessions/${sessionId}/abort`, { method: "POST" });
    expect(await abort.json()).toEqual({ aborted: true });
    const rest = await watcher.done;
    expect(rest.at(-1)?.event).toMatchObject({ type: "error", code: "aborted" });
    const idle = await api(`/api/sessions/${sessionId}/abort`, { method: "POST" });
    expect(await idle.json()).toEqual({ aborted: false });
    expect(await store.getSession(sessionId)).toBeDefined();
    expect((await errorOf(await api("/api/sessions/nosuch/abort", { method: "POST" }))).status).toBe(404);
  });

  it("GET /api/sessions/:id/stream: 204 with nothing to send, 404 for a missing session, 410 for an unknown id", async () => {
    const { api } = await startServer({ script: [[text("hi")]] });
    const created = (await (await api("/api/sessions", { json: {} })).json()) as { id: string };
    expect((await api(`/api/sessions/${created.id}/stream`)).status).toBe(204);
    expect((await errorOf(await api("/api/sessions/nosuch/stream"))).status).toBe(404);
    expect((await errorOf(await api("/api/sessions/bad%20id/stream"))).code).toBe("invalid_id");

    const run = await readSse(await api("/api/chat", { json: { message: "hi", session_id: created.id } }));
    // Without an id the latest run is replayed from its start.
    const replay = await readSse(await api(`/api/sessions/${created.id}/stream`));
    expect(replay.map((m) => m.id)).toEqual(run.map((m) => m.id));
    const last = run.at(-1)?.id as string;
    expect((await api(`/api/sessions/${created.id}/stream?last_event_id=${last}`)).status).toBe(204);
    const future = await errorOf(await api(`/api/sessions/${created.id}/stream`, { headers: { "last-event-id": "999999" } }));
    expect(future).toMatchObject({ status: 410, code: "events_expired" });
    const garbage = await errorOf(await api(`/api/sessions/${created.id}/stream`, { headers: { "last-event-id": "abc" } }));
    expect(garbage).toMatchObject({ status: 400, code: "invalid_input" });
  });
});
