import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

/**
 * `GET /api/asks` and `POST /api/asks/:id`: every kind of ask a run waits on, listed and answered by
 * its id. The `question` tool's question goes through them end to end: asked on the run stream,
 * listed, answered over HTTP, and the answer is what the model reads as the tool's result.
 */

const QUESTION = {
  question: "Which database?",
  header: "Database",
  options: [{ label: "PostgreSQL" }, { label: "SQLite", description: "a file" }],
};

describe("the asks routes", () => {
  it("a question asked on the run stream is listed, refuses a bad answer, takes one answer, and the model reads it", async () => {
    const model = scriptedModel([[toolCall("question", QUESTION, { id: "q1" })], [text("Using SQLite.")]]);
    const server = await startServer({ runtime: { model, askPollMs: 25 } });
    const checks: Promise<void>[] = [];
    const events = await readSse(await server.api("/api/chat", { json: { message: "set up the database" } }), (m) => {
      if (m.event.type !== "question_request") return undefined;
      const { id, session_id: sessionId } = m.event;
      checks.push(
        (async () => {
          const listed = (await (await server.api(`/api/asks?session_id=${sessionId}`)).json()) as { asks: unknown[] };
          expect(listed.asks).toEqual([
            expect.objectContaining({
              kind: "question",
              id,
              session_id: sessionId,
              question: expect.objectContaining({ question: "Which database?", agent: "build", call_id: "q1" }),
            }),
          ]);
          // Several answers to a single choice, or none at all, are refused and change nothing.
          const bad = await server.api(`/api/asks/${id}`, { json: { answers: ["SQLite", "PostgreSQL"] } });
          expect(await errorOf(bad)).toMatchObject({ status: 400, code: "invalid_input" });
          const empty = await server.api(`/api/asks/${id}`, { json: {} });
          expect(empty.status).toBe(400);
          const ok = await server.api(`/api/asks/${id}`, { json: { answers: ["sqlite"] } });
          expect(ok.status).toBe(200);
          expect(await ok.json()).toEqual({ id, kind: "question", session_id: sessionId, resumed_session: null });
          const again = await server.api(`/api/asks/${id}`, { json: { answers: ["PostgreSQL"] } });
          expect(await errorOf(again)).toMatchObject({ status: 409, code: "ask_already_answered" });
        })(),
      );
      return undefined;
    });
    await Promise.all(checks);
    expect(checks).toHaveLength(1);
    expect(events.find((m) => m.event.type === "tool_end")?.event).toMatchObject({ tool: "question", is_error: false });
    expect(events.at(-1)?.event).toMatchObject({ type: "done" });
    expect(JSON.stringify(model.calls[1]?.prompt)).toContain(
      'The user answered the question \\"Which database?\\": \\"SQLite\\"',
    );
    expect(((await (await server.api("/api/asks")).json()) as { asks: unknown[] }).asks).toEqual([]);
  });

  it("answers a permission ask by id too, and says ask_not_found for an id nobody asked", async () => {
    const server = await startServer({
      script: [[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]],
      runtime: { askPollMs: 25 },
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const replies: Promise<Response>[] = [];
    const events = await readSse(await server.api("/api/chat", { json: { message: "check .env" } }), (m) => {
      if (m.event.type === "permission_request") {
        replies.push(server.api(`/api/asks/${m.event.id}`, { json: { allow: true } }));
      }
      return undefined;
    });
    const [reply] = await Promise.all(replies);
    expect(await reply?.json()).toMatchObject({ kind: "permission", resumed_session: null });
    expect(events.at(-1)?.event).toMatchObject({ type: "done" });
    const missing = await server.api("/api/asks/perm_nobody", { json: { allow: true } });
    expect(await errorOf(missing)).toMatchObject({ status: 404, code: "ask_not_found" });
  });
});
