import { PERMISSION_UNANSWERED_OUTPUT } from "@arbor/core/session";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { pendingAsks } from "./helpers/asks.js";
import { FAKE_MODEL, runEvents, setupCliE2e } from "./helpers/e2e.js";
import { snapshotOf } from "./helpers/session.js";

/**
 * `arbor approvals pending` lists the asks waiting in the store with their ids, and `arbor approve
 * <ask-id>` answers one (a permission or a plan), exactly once, through the built CLI.
 */

const e2e = setupCliE2e("arbor-approve-ask-e2e-", { files: { ".env": "SECRET_TOKEN=hunter2\n" } });

const pending = () => pendingAsks(e2e);

describe("arbor approve <ask-id>", () => {
  it("a plan a run stopped on is listed with its ask id; 'arbor approve <prefix>' approves it and the run carries on", async () => {
    const baseURL = await e2e.fake([
      [toolCall("plan_create", { title: "Tidy up", steps: ["Look around"] })],
      [text("Nothing to tidy.")],
      [text("Done tidying.")],
    ]);
    const r = await e2e.cli([...e2e.runArgs(baseURL, "tidy the workspace")], { env: { PLAN_REQUIRE_APPROVAL: "true" } });
    expect(r.code, r.stderr).toBe(3);
    const sessionId = runEvents(r)[0]!.session_id;

    const asks = await pending();
    expect(asks).toEqual([
      expect.objectContaining({ kind: "plan", sessionId, plan: expect.objectContaining({ title: "Tidy up" }) }),
    ]);
    const id = asks[0]!.id;
    expect(id).toMatch(/^plan_/);
    const human = await e2e.cli(["approvals", "pending"]);
    expect(human.stdout).toContain(`${id}  plan`);
    expect(human.stdout).toContain('plan "Tidy up" (1 step');

    const modelArgs = ["--model", FAKE_MODEL, "--base-url", baseURL, "--cwd", e2e.workspace];
    const approved = await e2e.cli(["approve", id.slice(0, 10), "--json", ...modelArgs]);
    expect(approved.code, approved.stderr).toBe(0);
    const after = runEvents(approved);
    expect(after.filter((e) => e.type === "plan_updated").map((e) => `${e.step_id}:${e.status}`)).toEqual([
      "1:running",
      "1:completed",
    ]);
    expect(after.at(-1)).toMatchObject({ type: "done", session_id: sessionId });
    expect(await pending()).toEqual([]);
    const again = await e2e.cli(["approve", id, ...modelArgs]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not waiting for approval/);
    // Seven CLI commands: given room on a loaded machine.
  }, 90_000);

  it("a permission ask is listed with its id and denied by it, once; unknown ids are refused", async () => {
    const baseURL = await e2e.fake([[toolCall("read", { path: ".env" })], [text("unreached")]]);
    const r = await e2e.cli(e2e.runArgs(baseURL, "read .env"));
    expect(r.code, r.stderr).toBe(3);
    const sessionId = runEvents(r)[0]!.session_id;

    const asks = await pending();
    expect(asks).toEqual([
      expect.objectContaining({
        kind: "permission",
        sessionId,
        permission: expect.objectContaining({ request: expect.objectContaining({ permission: "read" }) }),
      }),
    ]);
    const id = asks[0]!.id;
    expect(id).toMatch(/^perm_/);

    const denied = await e2e.cli(["approve", id, "--deny", "--reason", "not the secrets"]);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toContain(`Denied: ask ${id} (read`);
    expect(denied.stdout).toContain(`in session ${sessionId}`);
    expect(await pending()).toEqual([]);

    const again = await e2e.cli(["approve", id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("answered already");
    const unknown = await e2e.cli(["approve", "perm_nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("'arbor approvals pending' lists them");
  }, 90_000);
});

describe("a run stopped on a permission ask with no terminal", () => {
  it("is shown as waiting, stores that the call did not run, and the call runs once allowed and continued", async () => {
    const baseURL = await e2e.fake([
      [toolCall("read", { path: ".env" })],
      [toolCall("read", { path: ".env" })],
      [text("It holds the token.")],
    ]);
    const modelArgs = e2e.modelArgs(baseURL);
    const r = await e2e.cli(["run", ...modelArgs, "read .env"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^⏸ read \.env .*— waiting for permission$/m);
    expect(r.stdout).toMatch(/^⏸ waiting for an answer · 1 step/m);
    expect(r.stdout).not.toMatch(/✗|interrupted/);
    const sessionId = /^session (\S+)$/m.exec(r.stdout)![1]!;
    const stored = (await snapshotOf(e2e.home, sessionId)).entries.flatMap((e) =>
      e.type === "message" && e.message.role === "tool" ? e.message.content : [],
    );
    expect(stored).toEqual([expect.objectContaining({ output: { type: "error-text", value: PERMISSION_UNANSWERED_OUTPUT } })]);

    const allow = await e2e.cli(["approve", sessionId, "--permission", "read", "--pattern", ".env"]);
    expect(allow.code, allow.stderr).toBe(0);
    const next = await e2e.cli(["run", ...modelArgs, "--session", sessionId, "go on"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^✓ read \.env/m);
    // The model was told the call had not run, so calling it again was the way on.
    expect(JSON.stringify(e2e.server!.requests.at(1)?.body)).toContain(
      "Not run: the run stopped while this call waited for permission",
    );
  }, 90_000);
});
