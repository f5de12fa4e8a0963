import { type SessionMeta, SessionMetaSchema, type Snapshot, SnapshotSchema } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, gateTool, startServer, type TestServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

async function json<T>(res: Promise<Response> | Response, status = 200): Promise<T> {
  const r = await res;
  if (r.status !== status) throw new Error(`Expected ${status}, got ${r.status}: ${await r.text()}`);
  return (await r.json()) as T;
}

/** A session with two turns, via the chat route. */
async function twoTurns(server: TestServer): Promise<Snapshot> {
  const first = await readSse(await server.api("/api/chat", { json: { message: "one" } }));
  const sessionId = first[0]?.event.session_id as string;
  await readSse(await server.api("/api/chat", { json: { message: "two", session_id: sessionId } }));
  return json<Snapshot>(server.api(`/api/sessions/${sessionId}`));
}

describe("sessions", () => {
  it("create, list newest first with paging, get the snapshot, delete", async () => {
    const { api } = await startServer();
    const created: SessionMeta[] = [];
    for (let i = 0; i < 3; i++) created.push(await json<SessionMeta>(api("/api/sessions", { json: { title: `s${i}` } }), 201));
    const named = await json<SessionMeta>(
      api("/api/sessions", { json: { id: "my-session", cwd: "/tmp", agent_id: "plan" } }),
      201,
    );
    expect(SessionMetaSchema.parse(named)).toMatchObject({ id: "my-session", cwd: "/tmp", agentId: "plan" });
    expect(await errorOf(await api("/api/sessions", { json: { id: "my-session" } }))).toMatchObject({
      status: 409,
      code: "session_exists",
    });

    const page1 = await json<{ sessions: SessionMeta[]; next_cursor?: string }>(api("/api/sessions?limit=2"));
    expect(page1.sessions).toHaveLength(2);
    expect(page1.next_cursor).toBeTypeOf("string");
    const page2 = await json<{ sessions: SessionMeta[]; next_cursor?: string }>(
      api(`/api/sessions?limit=2&cursor=${encodeURIComponent(page1.next_cursor as string)}`),
    );
    const all = [...page1.sessions, ...page2.sessions].map((s) => s.id);
    expect(all).toEqual([named, ...created.reverse()].map((s) => s.id));
    expect(page2.next_cursor).toBeUndefined();

    const snapshot = await json<Snapshot>(api("/api/sessions/my-session"));
    expect(SnapshotSchema.parse(snapshot).session.id).toBe("my-session");
    expect(snapshot).toMatchObject({ entries: [], activePath: [] });

    expect((await api("/api/sessions/my-session", { method: "DELETE" })).status).toBe(204);
    expect(await errorOf(await api("/api/sessions/my-session"))).toMatchObject({ status: 404, code: "session_not_found" });
    expect(await errorOf(await api("/api/sessions/my-session", { method: "DELETE" }))).toMatchObject({ status: 404 });
  });

  it("filters the list by workspace (cwd) and by parent, and a chat's session records the server's workspace", async () => {
    const server = await startServer();
    const { api, store } = server;
    const a1 = await json<SessionMeta>(api("/api/sessions", { json: { cwd: "/work/a", title: "a1" } }), 201);
    await json<SessionMeta>(api("/api/sessions", { json: { cwd: "/work/b", title: "b" } }), 201);
    const a2 = await json<SessionMeta>(api("/api/sessions", { json: { cwd: "/work/a", title: "a2" } }), 201);
    const kid = await store.createSession({ cwd: "/work/a", parentSessionId: a1.id });
    const ids = async (query: string) =>
      (await json<{ sessions: SessionMeta[] }>(api(`/api/sessions?${query}`))).sessions.map((s) => s.id);

    expect(await ids(`cwd=${encodeURIComponent("/work/a")}`)).toEqual([kid.id, a2.id, a1.id]);
    expect(await ids(`cwd=${encodeURIComponent("/work/a")}&parent_id=none`)).toEqual([a2.id, a1.id]);
    expect(await ids(`parent_id=${a1.id}`)).toEqual([kid.id]);
    expect(await ids(`cwd=${encodeURIComponent("/work/a")}&limit=1`)).toEqual([kid.id]);
    expect(await ids(`cwd=${encodeURIComponent("/nowhere")}`)).toEqual([]);

    const chat = await readSse(await server.api("/api/chat", { json: { message: "hi" } }));
    const chatSession = chat[0]?.event.session_id as string;
    expect(await ids(`cwd=${encodeURIComponent(server.cwd)}`)).toEqual([chatSession]);
  });

  it("rejects a relative or malformed cwd and a bad parent_id with 400, listing nothing", async () => {
    const { api } = await startServer();
    for (const cwd of ["relative/dir", "", "/a\0b", `/${"x".repeat(5000)}`]) {
      const err = await errorOf(await api(`/api/sessions?cwd=${encodeURIComponent(cwd)}`));
      expect(err).toMatchObject({ status: 400, code: "invalid_input" });
    }
    expect((await errorOf(await api("/api/sessions?cwd=relative"))).message).toContain("absolute");
    expect(await errorOf(await api("/api/sessions?parent_id=..%2Fx"))).toMatchObject({ status: 400 });
  });

  it("rejects bad ids, bad queries and bad bodies with 400", async () => {
    const { api } = await startServer();
    const badId = await errorOf(await api("/api/sessions/..%2Fetc"));
    expect(badId).toMatchObject({ status: 400, code: "invalid_id" });
    expect(badId.message).toContain("Session id");
    expect(await errorOf(await api(`/api/sessions/${"x".repeat(300)}`))).toMatchObject({ status: 400, code: "invalid_id" });
    expect(await errorOf(await api("/api/sessions?limit=0"))).toMatchObject({ status: 400, code: "invalid_input" });
    expect(await errorOf(await api("/api/sessions?limit=abc"))).toMatchObject({ status: 400, code: "invalid_input" });
    expect(await errorOf(await api("/api/sessions?cursor=garbage"))).toMatchObject({ status: 400, code: "invalid_cursor" });
    expect(await errorOf(await api("/api/sessions", { json: { id: "bad id" } }))).toMatchObject({ status: 400 });
    expect(await errorOf(await api("/api/sessions", { json: { colour: "red" } }))).toMatchObject({ status: 400 });
    expect(await errorOf(await api("/api/sessions", { json: [1, 2] }))).toMatchObject({ status: 400, code: "invalid_input" });
    // An empty body is an empty object: every field of a new session is optional.
    expect((await api("/api/sessions", { method: "POST" })).status).toBe(201);
  });

  it("switch leaf, fork and label, with 404 for a missing session or entry", async () => {
    const server = await startServer({ script: [[text("a1")], [text("a2")]] });
    const { api } = server;
    const snapshot = await twoTurns(server);
    const id = snapshot.session.id;
    const [u1, a1] = snapshot.activePath;

    const moved = await json<SessionMeta>(api(`/api/sessions/${id}/leaf`, { json: { entry_id: a1 } }));
    expect(moved.leafEntryId).toBe(a1);
    expect((await json<Snapshot>(api(`/api/sessions/${id}`))).activePath).toEqual([u1, a1]);

    const fork = await json<SessionMeta>(api(`/api/sessions/${id}/fork`, { json: { entry_id: u1 } }), 201);
    expect(fork.id).not.toBe(id);
    expect(fork.branchedFrom).toEqual({ sessionId: id, entryId: u1 });
    expect((await json<Snapshot>(api(`/api/sessions/${fork.id}`))).activePath).toHaveLength(1);

    const label = await json<{ type: string; targetId: string; label?: string }>(
      api(`/api/sessions/${id}/labels`, { json: { entry_id: a1, label: "good answer" } }),
      201,
    );
    expect(label).toMatchObject({ type: "label", targetId: a1, label: "good answer" });
    expect((await json<Snapshot>(api(`/api/sessions/${id}`))).labelsByEntryId).toEqual({ [a1 as string]: "good answer" });
    await json(api(`/api/sessions/${id}/labels`, { json: { entry_id: a1, label: null } }), 201);
    expect((await json<Snapshot>(api(`/api/sessions/${id}`))).labelsByEntryId).toEqual({});

    for (const route of ["leaf", "fork", "labels"]) {
      const body = route === "labels" ? { entry_id: "nosuchentry", label: "x" } : { entry_id: "nosuchentry" };
      expect(await errorOf(await api(`/api/sessions/${id}/${route}`, { json: body }))).toMatchObject({
        status: 404,
        code: "entry_not_found",
      });
      expect(await errorOf(await api(`/api/sessions/nosuch/${route}`, { json: body }))).toMatchObject({
        status: 404,
        code: "session_not_found",
      });
      expect(await errorOf(await api(`/api/sessions/${id}/${route}`, { json: { entry_id: "../x" } }))).toMatchObject({
        status: 400,
      });
    }
  });

  it("tree edits and delete wait for an idle session (409 while running); fork does not", async () => {
    const gate = gateTool();
    const server = await startServer({ script: [[toolCall("gate", {})], [text("done")]], tools: [gate.tool] });
    const { api } = server;
    let sessionId = "";
    const results: Record<string, number> = {};
    const messages = await readSse(await api("/api/chat", { json: { message: "hold" } }), (m) => {
      sessionId = m.event.session_id;
      if (m.event.type === "tool_start") {
        void (async () => {
          const snapshot = await json<Snapshot>(api(`/api/sessions/${sessionId}`));
          const first = snapshot.activePath[0] as string;
          results.leaf = (await api(`/api/sessions/${sessionId}/leaf`, { json: { entry_id: first } })).status;
          results.labels = (await api(`/api/sessions/${sessionId}/labels`, { json: { entry_id: first, label: "x" } })).status;
          results.delete = (await api(`/api/sessions/${sessionId}`, { method: "DELETE" })).status;
          results.fork = (await api(`/api/sessions/${sessionId}/fork`, { json: { entry_id: first } })).status;
          gate.release();
        })();
      }
      return undefined;
    });
    expect(messages.at(-1)?.event.type).toBe("done");
    expect(results).toEqual({ leaf: 409, labels: 409, delete: 409, fork: 201 });
    expect((await api(`/api/sessions/${sessionId}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/sessions/${sessionId}/stream`)).status).toBe(404);
  });
});
