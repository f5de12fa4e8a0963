import { text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase } from "../../cli/test/helpers/postgres.js";
import { json } from "./helpers/json.js";
import { errorOf, gateTool, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

/*
 * Two servers over one PostgreSQL store, as two instances behind a load balancer: a chat is
 * admitted before its response starts, so a session the other server drives is answered 409
 * session_busy (naming that server) or 202 steered, never 200 with a stream that then fails.
 */

const drops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop().catch(() => undefined);
});

async function twoServers() {
  const db = await createTestDatabase();
  drops.push(db.drop);
  const gate = gateTool();
  const server = (holderName: string) =>
    startServer({
      script: [[toolCall("gate", {})], [text("done")]],
      tools: [gate.tool],
      store: () => db.url,
      runtime: { holderName },
    });
  return { gate, a: await server("server A"), b: await server("server B") };
}

describe("a chat on a session another server drives, over one PostgreSQL store", () => {
  it("chatted at both servers at once: one streams the run, the other answers 409 session_busy before any event", async () => {
    const { gate, a, b } = await twoServers();
    const { id } = await json<{ id: string }>(a.api("/api/sessions", { json: {} }), 201);
    const answers = await Promise.all(
      [a, b].map((s) => s.api("/api/chat", { json: { message: "go", session_id: id, busy: "reject" } })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers.findIndex((r) => r.status === 200);
    const refused = await errorOf(answers[1 - winner]!);
    expect(refused.code).toBe("session_busy");
    expect(refused.message).toContain(winner === 0 ? "server A" : "server B");

    const events = await readSse(answers[winner]!, (m) => {
      if (m.event.type === "tool_start") gate.release();
      return undefined;
    });
    expect(events.at(-1)?.event.type).toBe("done");
    expect(events.some((m) => m.event.type === "error")).toBe(false);
  });

  it("asked to steer, the other server hands the message to the running run: 202, and the run answers it", async () => {
    const { gate, a, b } = await twoServers();
    const { id } = await json<{ id: string }>(a.api("/api/sessions", { json: {} }), 201);
    let steered: Response | undefined;
    const events = await readSse(await a.api("/api/chat", { json: { message: "go", session_id: id } }), (m) => {
      if (m.event.type === "tool_start") {
        void b.api("/api/chat", { json: { message: "also say hi", session_id: id } }).then((res) => {
          steered = res;
          gate.release();
        });
      }
      return undefined;
    });
    expect(events.at(-1)?.event.type).toBe("done");
    expect(steered?.status).toBe(202);
    expect(await steered?.json()).toMatchObject({ steered: true, session_id: id });
    const path = await a.store.getActivePath(id);
    const users = path.flatMap((e) =>
      e.type === "message" && e.message.role === "user" ? [JSON.stringify(e.message.content)] : [],
    );
    expect(users.some((u) => u.includes("also say hi"))).toBe(true);
  });
});
