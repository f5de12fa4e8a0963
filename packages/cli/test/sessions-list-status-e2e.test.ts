import { error, hang, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { runEvents, setupCliE2e } from "./helpers/e2e.js";

/**
 * `arbor sessions list` (text) as a user reads it after runs that did not end well: a run killed
 * mid-step reads as interrupted and keeps the prompt as its title, a failed run reads as failed.
 */

const e2e = setupCliE2e("arbor-sessions-list-status-");

describe("arbor sessions list: statuses and titles", () => {
  it("a killed run is listed as interrupted under its prompt, a failed one as failed, a finished one as is", async () => {
    const fine = await e2e.cli(e2e.runArgs(await e2e.fake([[text("hello")]]), "Say hello"));
    expect(fine.code, fine.stderr).toBe(0);

    const failed = await e2e.cli(e2e.runArgs(await e2e.fake([[error(400, { message: "bad request" })]]), "Break it"));
    expect(failed.code).not.toBe(0);

    // The provider never answers: the run is killed while its first step streams.
    const baseURL = await e2e.fake([[hang()]]);
    const running = e2e.startArbor(e2e.runArgs(baseURL, "Look at the parser\nand more"));
    await running.waitForStdout(/\n/);
    const sessionId = (JSON.parse(running.stdout().split("\n")[0]!) as { session_id: string }).session_id;
    running.child.kill("SIGKILL");
    await running.result;

    const list = await e2e.cli(["sessions", "list"]);
    expect(list.code, list.stderr).toBe(0);
    const row = (id: string) => list.stdout.split("\n").find((l) => l.startsWith(id)) ?? "";
    expect(row(sessionId)).toMatch(/\[interrupted\] Look at the parser$/);
    expect(row(runEvents(failed)[0]!.session_id)).toMatch(/\[failed\] Break it$/);
    expect(row(runEvents(fine)[0]!.session_id)).toMatch(/ Say hello$/);
    expect(list.stdout).not.toContain("(untitled)");
  }, 60_000);
});
