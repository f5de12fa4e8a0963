import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedModel, text } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Principal } from "../src/auth/principal.js";
import { isArborError } from "../src/errors.js";
import type { Runtime } from "../src/runtime/types.js";
import { createRuntime } from "../src/runtime.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isArborError(err)) return err.code;
    throw err;
  }
  return "ok";
}

describe("runtime.access: the session door's principals", () => {
  let dir: string;
  let store: Store;
  let runtime: Runtime;
  let projectA: string;
  let projectB: string;
  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "arbor-access-")));
    projectA = join(dir, "a");
    projectB = join(dir, "b");
    mkdirSync(projectA);
    mkdirSync(projectB);
    store = await openStore({ kind: "file", dir: join(dir, "store") });
    runtime = createRuntime({
      store,
      cwd: projectA,
      model: scriptedModel([[text("hello back")], [text("A title")], [text("spare")]]),
      tools: [],
    });
  });
  afterEach(async () => {
    await runtime.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a token is shown once, kept hashed in 0600 files, resolves to its principal, and stops at revoke", async () => {
    const { token, record } = await runtime.access.addToken({ scopes: ["read"], projects: [projectA], name: "ci" });
    expect(token).toMatch(/^arbor_/);
    expect(JSON.stringify(await runtime.access.listTokens())).not.toContain(token);
    expect(statSync(join(dir, "store", "tokens")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "store", "tokens", `${record.id}.json`)).mode & 0o777).toBe(0o600);
    expect(await runtime.access.principalForToken(token)).toEqual({ id: record.id, scopes: ["read"], projects: [projectA] });
    expect(await runtime.access.principalForToken(`${token}x`)).toBeUndefined();
    await runtime.access.revokeToken(record.id);
    expect(await runtime.access.principalForToken(token)).toBeUndefined();
    expect(await code(runtime.access.revokeToken("tok_nope"))).toBe("token_not_found");
    expect(await code(runtime.access.addToken({ scopes: [], name: "none" }))).toBe("invalid_input");
    expect(await code(runtime.access.addToken({ scopes: ["read"], projects: ["relative/dir"] }))).toBe("invalid_input");
  });

  it("records who created a session and who sent each user message", async () => {
    const alice: Principal = { id: "tok_alice", scopes: ["run"] };
    const started = await runtime.runs.start({ prompt: "hi", principal: alice });
    if (started.kind !== "started") throw new Error("not started");
    const result = await started.handle.result;
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("done");
    const meta = await store.getSession(result.sessionId);
    expect(meta?.createdBy).toBe("tok_alice");
    const users = (await store.getActivePath(result.sessionId)).flatMap((e) =>
      e.type === "message" && e.message.role === "user" ? [e.message] : [],
    );
    expect(users.map((m) => (m as { sentBy?: string }).sentBy)).toEqual(["tok_alice"]);
    const created = await runtime.sessions.create({}, { principal: alice });
    expect(created.createdBy).toBe("tok_alice");
    expect((await runtime.sessions.create()).createdBy).toBeUndefined();
  });

  it("checks scopes in every operation, and hides sessions of other projects as missing", async () => {
    const inA = await store.createSession({ cwd: projectA });
    const inB = await store.createSession({ cwd: projectB });
    const reader: Principal = { id: "r", scopes: ["read"] };
    const runnerA: Principal = { id: "ra", scopes: ["run"], projects: [projectA] };
    const adminA: Principal = { id: "aa", scopes: ["admin"], projects: [projectA] };

    expect(await code(runtime.sessions.create({}, { principal: reader }))).toBe("scope_required");
    expect(await code(runtime.runs.start({ prompt: "x", principal: reader }))).toBe("scope_required");
    expect(await code(runtime.sessions.delete(inA.id, { principal: runnerA }))).toBe("scope_required");
    expect(await code(runtime.sessions.fork(inB.id, "e", { principal: runnerA }))).toBe("session_not_found");
    expect(await code(runtime.sessions.delete(inB.id, { principal: adminA }))).toBe("session_not_found");
    expect(await code(runtime.runs.admit(inB.id, "x", { principal: runnerA }))).toBe("session_not_found");
    expect(await code(runtime.sessions.steer(inB.id, "x", { principal: runnerA }))).toBe("session_not_found");
    // A new session of a project token lands in its project; one elsewhere is refused.
    expect((await runtime.sessions.create({}, { principal: runnerA })).cwd).toBe(projectA);
    expect(await code(runtime.sessions.create({ cwd: projectB }, { principal: runnerA }))).toBe("scope_required");

    const listed = await runtime.access.listSessions(runnerA, { limit: 1 });
    expect(listed.sessions.every((s) => s.cwd === projectA)).toBe(true);
    const all: string[] = [];
    for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
      const page = await runtime.access.listSessions(runnerA, { limit: 1, ...(cursor ? { cursor } : {}) });
      all.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor;
    }
    expect(all).toContain(inA.id);
    expect(all).not.toContain(inB.id);

    await runtime.sessions.delete(inA.id, { principal: adminA });
    expect(await store.getSession(inA.id)).toBeUndefined();
  });

  it("run answers the asks of sessions it created; admin answers any", async () => {
    const mine = await runtime.sessions.create({}, { principal: { id: "me", scopes: ["run"] } });
    const theirs = await runtime.sessions.create({}, { principal: { id: "them", scopes: ["run"] } });
    const ask = (id: string, sessionId: string) =>
      store.createAsk({
        id,
        kind: "permission",
        sessionId,
        request: { permission: "bash", patterns: ["ls"] },
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
    await ask("p_mine", mine.id);
    await ask("p_theirs", theirs.id);
    const me: Principal = { id: "me", scopes: ["run"] };
    expect(await code(runtime.asks.answerPermission("p_theirs", "once", { principal: me }))).toBe("scope_required");
    expect(await code(runtime.asks.answerPermission("p_mine", "once", { principal: { id: "x", scopes: ["read"] } }))).toBe(
      "scope_required",
    );
    expect(await code(runtime.asks.answerPermission("p_mine", "once", { principal: me }))).toBe("ok");
    expect(await code(runtime.asks.answerPermission("p_theirs", "once", { principal: { id: "boss", scopes: ["admin"] } }))).toBe(
      "ok",
    );
  });
});
