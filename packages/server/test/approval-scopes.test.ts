import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

const bash = (command: string, id: string) => toolCall("bash", { command }, { id });

interface Listed {
  id: string;
  agent: string;
  permission: string;
  pattern: string;
  scope: string;
}

describe("approval scopes over the API", () => {
  it("a project approval holds for the exact command shown, in every session of the workspace, until revoked", async () => {
    const server = await startServer({
      script: [
        [bash("echo hi *.txt", "b1")],
        [text("done")],
        [bash("echo hi *.txt", "b2"), bash("echo hi *.md", "b3")],
        [text("ok")],
      ],
      runtime: { permission: { bash: "ask" } },
    });
    const { api, cwd } = server;
    const asked: Array<{ patterns: string[]; always?: string[] }> = [];
    const answer = (reply: object) => (m: { event: Record<string, unknown> & { type: string } }) => {
      if (m.event.type !== "permission_request") return undefined;
      asked.push({ patterns: m.event.patterns as string[] });
      void api(`/api/permissions/${m.event.id as string}`, { json: reply });
      return undefined;
    };
    const first = await readSse(
      await api("/api/chat", { json: { message: "list" } }),
      answer({ reply: "always", scope: "project" }),
    );
    expect(first.at(-1)?.event.type).toBe("done");
    expect(asked).toEqual([{ patterns: ["echo hi *.txt"] }]);

    // Recorded in the workspace, exactly as shown: the `*` is not a wildcard.
    const file = JSON.parse(readFileSync(join(cwd, ".arbor", "approvals.json"), "utf8")) as { approvals: Listed[] };
    expect(file.approvals).toEqual([expect.objectContaining({ agent: "build", permission: "bash", pattern: "echo hi *.txt" })]);
    const listed = ((await (await api("/api/approvals")).json()) as { approvals: Listed[] }).approvals;
    expect(listed).toEqual([expect.objectContaining({ scope: "project", permission: "bash", pattern: "echo hi *.txt" })]);

    // A new session in the same workspace: the approved command runs unasked, a similar one is asked.
    asked.length = 0;
    const second = await readSse(await api("/api/chat", { json: { message: "again" } }), answer({ reply: "once" }));
    expect(second.at(-1)?.event.type).toBe("done");
    expect(asked).toEqual([{ patterns: ["echo hi *.md"] }]);
    const sessionId = second[0]?.event.session_id as string;
    expect(((await (await api(`/api/approvals?session_id=${sessionId}`)).json()) as { approvals: Listed[] }).approvals).toEqual(
      listed,
    );

    const id = listed[0]!.id;
    const revoked = await api(`/api/approvals/${id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id, scope: "project", pattern: "echo hi *.txt" });
    expect(((await (await api("/api/approvals")).json()) as { approvals: Listed[] }).approvals).toEqual([]);
    expect(await errorOf(await api(`/api/approvals/${id}`, { method: "DELETE" }))).toMatchObject({
      status: 404,
      code: "approval_not_found",
    });
  });

  it("a session approval is revoked by id with its session; a global one lands in the Arbor home", async () => {
    const server = await startServer({
      script: [[bash("echo one", "b1"), bash("echo two", "b2")], [text("done")]],
      runtime: { permission: { bash: "ask" } },
    });
    const { api, cwd } = server;
    const messages = await readSse(await api("/api/chat", { json: { message: "go" } }), (m) => {
      if (m.event.type !== "permission_request") return undefined;
      const scope = m.event.patterns[0] === "echo one" ? "session" : "global";
      void api(`/api/permissions/${m.event.id}`, { json: { reply: "always", scope } });
      return undefined;
    });
    expect(messages.at(-1)?.event.type).toBe("done");
    const sessionId = messages[0]?.event.session_id as string;
    const listed = ((await (await api(`/api/approvals?session_id=${sessionId}`)).json()) as { approvals: Listed[] }).approvals;
    expect(listed.map((a) => [a.scope, a.pattern])).toEqual([
      ["session", "echo one"],
      ["global", "echo two"],
    ]);
    expect(existsSync(join(cwd, ".arbor", "approvals.json"))).toBe(false);
    // Without the session, its approval is not found and nothing changes.
    const session = listed[0]!;
    expect(await errorOf(await api(`/api/approvals/${session.id}`, { method: "DELETE" }))).toMatchObject({
      status: 404,
      code: "approval_not_found",
    });
    expect((await api(`/api/approvals/${session.id}?session_id=${sessionId}`, { method: "DELETE" })).status).toBe(200);
    const after = ((await (await api(`/api/approvals?session_id=${sessionId}`)).json()) as { approvals: Listed[] }).approvals;
    expect(after.map((a) => a.scope)).toEqual(["global"]);
  });

  it("bad input: a bad id or session is refused and nothing is written", async () => {
    const { api, cwd } = await startServer();
    expect(await errorOf(await api("/api/approvals/bad%20id", { method: "DELETE" }))).toMatchObject({
      status: 400,
      code: "invalid_id",
    });
    expect(await errorOf(await api("/api/approvals/apr_x?session_id=nosuch", { method: "DELETE" }))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    expect(await errorOf(await api("/api/approvals?session_id=nosuch"))).toMatchObject({ status: 404 });
    expect(await errorOf(await api("/api/permissions/perm_x", { json: { reply: "always", scope: "galaxy" } }))).toMatchObject({
      status: 400,
      code: "invalid_input",
    });
    expect(existsSync(join(cwd, ".arbor"))).toBe(false);
  });
});
