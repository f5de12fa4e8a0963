import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse, type SseMessage } from "./helpers/sse.js";

const readEnv = (id: string) => [toolCall("read", { path: ".env" }, { id })];

describe("permissions and approvals", () => {
  it("an ask is listed, answered once over HTTP, and a second answer is 404", async () => {
    const server = await startServer({ script: [readEnv("r1"), [text("The key is set.")]] });
    const { api, cwd } = server;
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const seen: Record<string, unknown> = {};
    const messages = await readSse(await api("/api/chat", { json: { message: "check .env" } }), (m: SseMessage) => {
      if (m.event.type !== "permission_request") return undefined;
      const { id, session_id } = m.event;
      void (async () => {
        const listed = (await (await api(`/api/permissions?session_id=${session_id}`)).json()) as { permissions: unknown[] };
        seen.listed = listed.permissions;
        seen.all = ((await (await api("/api/permissions")).json()) as { permissions: unknown[] }).permissions.length;
        const reply = await api(`/api/permissions/${id}`, { json: { reply: "once" } });
        seen.reply = { status: reply.status, body: await reply.json() };
        seen.again = await errorOf(await api(`/api/permissions/${id}`, { json: { reply: "once" } }));
      })();
      return undefined;
    });
    expect(messages.at(-1)?.event.type).toBe("done");
    const request = messages.find((m) => m.event.type === "permission_request")?.event as { id: string; session_id: string };
    expect(seen.listed).toEqual([
      expect.objectContaining({
        id: request.id,
        session_id: request.session_id,
        agent: "build",
        tool: "read",
        call_id: "r1",
        permission: "read",
      }),
    ]);
    expect(seen.all).toBe(1);
    expect(seen.reply).toEqual({ status: 200, body: { id: request.id, reply: "once" } });
    expect(seen.again).toMatchObject({ status: 409, code: "ask_already_answered" });
    expect(messages.some((m) => m.event.type === "tool_end" && m.event.output.includes("KEY=1"))).toBe(true);
  });

  it("always is recorded as an approval, listed and revocable", async () => {
    const server = await startServer({ script: [readEnv("r1"), [text("ok")]] });
    const { api, cwd } = server;
    writeFileSync(join(cwd, ".env"), "KEY=1\n");
    const messages = await readSse(await api("/api/chat", { json: { message: "check" } }), (m) => {
      if (m.event.type === "permission_request") void api(`/api/permissions/${m.event.id}`, { json: { reply: "always" } });
      return undefined;
    });
    const sessionId = messages[0]?.event.session_id as string;
    const listed = (await (await api(`/api/sessions/${sessionId}/approvals`)).json()) as {
      approvals: Array<{ agent: string; permission: string; pattern: string }>;
    };
    expect(listed.approvals).toHaveLength(1);
    const approval = listed.approvals[0] as { agent: string; permission: string; pattern: string };
    expect(approval).toMatchObject({ agent: "build", permission: "read", scope: "session" });
    const revoke = { agent: approval.agent, permission: approval.permission, pattern: approval.pattern };
    expect(await (await api(`/api/sessions/${sessionId}/approvals/revoke`, { json: revoke })).json()).toEqual({ revoked: true });
    expect(await (await api(`/api/sessions/${sessionId}/approvals/revoke`, { json: revoke })).json()).toEqual({ revoked: false });
    expect(((await (await api(`/api/sessions/${sessionId}/approvals`)).json()) as { approvals: unknown[] }).approvals).toEqual(
      [],
    );
    expect(await errorOf(await api("/api/sessions/nosuch/approvals"))).toMatchObject({ status: 404 });
  });

  it("unknown ids are 404, bad ids and bad replies 400", async () => {
    const { api } = await startServer();
    expect(await errorOf(await api("/api/permissions/perm_nothing", { json: { reply: "once" } }))).toMatchObject({
      status: 404,
      code: "permission_not_found",
    });
    expect(await errorOf(await api("/api/permissions/bad%20id", { json: { reply: "once" } }))).toMatchObject({
      status: 400,
      code: "invalid_id",
    });
    expect(await errorOf(await api("/api/permissions/perm_x", { json: { reply: "sometimes" } }))).toMatchObject({
      status: 400,
      code: "invalid_input",
    });
    expect(await errorOf(await api("/api/permissions?session_id=nosuch"))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    expect(await errorOf(await api("/api/permissions?session_id=..."))).toMatchObject({ status: 400 });
    expect(await (await api("/api/permissions")).json()).toEqual({ permissions: [] });
  });
});
