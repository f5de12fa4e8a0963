import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { APPROVAL_ENTRY_TYPE, type ListedApproval } from "@arbor/core/session";
import { beforeAll, describe, expect, it } from "vitest";
import { addToApprovalFile } from "../../core/src/permissions/approval-file.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { runArborInProcess } from "./helpers/in-process.js";
import { withStore } from "./helpers/seed.js";

/** The CLI: `arbor approvals list|revoke` over a session's, a workspace's and the global approvals. */
describe("arbor approvals", () => {
  const e2e = setupCliE2e("arbor-cli-approvals-", { realpath: true, workspace: false });
  let spec: string;
  let home: string;
  let project: string;
  let sessionId: string;

  beforeAll(async () => {
    spec = join(e2e.dir, "store");
    home = e2e.home;
    project = join(e2e.dir, "project");
    await Promise.all([mkdir(project), mkdir(home)]);
    await withStore(spec, async (store) => {
      sessionId = (await store.createSession({ cwd: project, title: "with approvals" })).id;
      await store.appendEntry(sessionId, {
        type: "custom",
        customType: APPROVAL_ENTRY_TYPE,
        data: { agent: "build", permission: "bash", pattern: "npm test", scope: "session" },
      });
    });
    const places = { workspace: project, home };
    const now = new Date("2026-11-26T00:00:00Z");
    addToApprovalFile("project", places, { agent: "build", permission: "fetch", pattern: "https://example.com/a" }, now);
    addToApprovalFile("global", places, { agent: "build", permission: "bash", pattern: "git status" }, now);
  });

  const list = async (args: string[], cwd = project) => {
    const r = await runArborInProcess(["approvals", "list", "--json", "--store", spec, ...args], { home, cwd });
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { approvals: ListedApproval[] }).approvals;
  };

  it("lists each scope with the exact pattern, and revokes by id", async () => {
    const all = await list(["--session", sessionId], e2e.dir);
    expect(all.map((a) => [a.scope, a.permission, a.pattern])).toEqual([
      ["session", "bash", "npm test"],
      ["project", "fetch", "https://example.com/a"],
      ["global", "bash", "git status"],
    ]);
    // Without a session: the current directory's project and the global ones.
    expect((await list([])).map((a) => a.scope)).toEqual(["project", "global"]);
    expect((await list([], e2e.dir)).map((a) => a.scope)).toEqual(["global"]);

    const text = await runArborInProcess(["approvals", "list", "--store", spec], { home, cwd: project });
    expect(text.stdout).toContain("project  build  fetch  https://example.com/a");

    const [session, proj] = all as [ListedApproval, ListedApproval];
    const revoked = await runArborInProcess(["approvals", "revoke", session.id, "--session", sessionId, "--store", spec], {
      home,
      cwd: e2e.dir,
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked session approval ${session.id}: bash npm test.`);
    const r2 = await runArborInProcess(["approvals", "revoke", proj.id, "--cwd", project, "--json", "--store", spec], {
      home,
      cwd: e2e.dir,
    });
    expect(JSON.parse(r2.stdout)).toMatchObject({ id: proj.id, scope: "project" });
    expect((await list(["--session", sessionId], e2e.dir)).map((a) => a.scope)).toEqual(["global"]);
    expect(JSON.parse(readFileSync(join(project, ".arbor", "approvals.json"), "utf8"))).toEqual({ version: 1, approvals: [] });
  });

  it("takes a session id or an approval id shortened to a prefix only one of them starts with", async () => {
    const root = join(e2e.dir, "prefixes");
    const store = join(root, "store");
    const prefixHome = join(root, "home");
    const ws = join(root, "ws");
    await Promise.all([mkdir(prefixHome, { recursive: true }), mkdir(ws, { recursive: true })]);
    const granted = await withStore(store, async (s) => {
      await s.createSession({ id: "amb-one", cwd: ws });
      await s.createSession({ id: "amb-two", cwd: ws });
      await s.createSession({ id: "solo-session", cwd: ws });
      const entry = await s.appendEntry("solo-session", {
        type: "custom",
        customType: APPROVAL_ENTRY_TYPE,
        data: { agent: "build", permission: "bash", pattern: "make", scope: "session" },
      });
      return entry.id;
    });
    const places = { workspace: ws, home: prefixHome };
    const now = new Date("2026-11-26T00:00:00Z");
    const first = addToApprovalFile("global", places, { agent: "build", permission: "bash", pattern: "ls" }, now);
    const second = addToApprovalFile("global", places, { agent: "build", permission: "bash", pattern: "pwd" }, now);
    const cli = (...args: string[]) =>
      runArborInProcess(["approvals", ...args, "--store", store], { home: prefixHome, cwd: root });

    // --session takes a prefix, and the session's recorded workspace still decides the project scope.
    const listed = await cli("list", "--session", "solo", "--json");
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { approvals: ListedApproval[] }).approvals.map((a) => a.id)).toEqual([
      granted,
      first.id,
      second.id,
    ]);
    const ambiguous = await cli("list", "--session", "amb");
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/Session id prefix amb is ambiguous: 2 sessions start with it \(amb-one, amb-two\)/);
    const unknown = await cli("list", "--session", "zzz");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Session zzz does not exist/);

    // The approval's own id: a session's (its entry) and a file's (apr_…) both by prefix; "apr_" names both files'.
    const bothGlobal = await cli("revoke", "apr_");
    expect(bothGlobal.code).toBe(2);
    expect(bothGlobal.stderr).toMatch(/Approval id prefix apr_ is ambiguous: 2 approvals start with it/);
    const bySession = await cli("revoke", granted.slice(0, 6), "--session", "solo-s", "--json");
    expect(bySession.code, bySession.stderr).toBe(0);
    expect(JSON.parse(bySession.stdout)).toMatchObject({ id: granted, scope: "session", pattern: "make" });
    const byFile = await cli("revoke", first.id.slice(0, 10), "--json");
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(JSON.parse(byFile.stdout)).toMatchObject({ id: first.id, pattern: "ls" });
    const left = await cli("list", "--session", "solo", "--json");
    expect((JSON.parse(left.stdout) as { approvals: ListedApproval[] }).approvals.map((a) => a.id)).toEqual([second.id]);
  });

  it("bad input: an unknown approval, an unknown or invalid session; exit 2 and nothing written", async () => {
    const before = readFileSync(join(home, "approvals.json"), "utf8");
    const unknown = await runArborInProcess(["approvals", "revoke", "apr_nothing", "--json", "--store", spec], {
      home,
      cwd: project,
    });
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout || unknown.stderr)).toMatchObject({ error: { code: "approval_not_found" } });
    const noSession = await runArborInProcess(["approvals", "list", "--session", "nosuch", "--store", spec], {
      home,
      cwd: project,
    });
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain("nosuch does not exist");
    const badId = await runArborInProcess(["approvals", "list", "--session", "../x", "--store", spec], { home, cwd: project });
    expect(badId.code).toBe(2);
    const missing = await runArborInProcess(["approvals", "revoke", "--store", spec], { home, cwd: project });
    expect(missing.code).toBe(2);
    expect(readFileSync(join(home, "approvals.json"), "utf8")).toBe(before);
    expect(existsSync(join(e2e.dir, ".arbor"))).toBe(false);
  });
});
