import { text } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { FaultRig, jsonLines } from "./helpers/fault.js";
import { runArborInProcess } from "./helpers/in-process.js";
import { withStore } from "./helpers/seed.js";

/**
 * How the command line meets an interrupted session: `arbor run --resume` finishes it, a prompt to
 * it says so, no prompt points at --resume, and `arbor serve` wakes it at start-up unless told not to.
 * The session is left as a process killed after writing the prompt leaves it: stored running, no lease.
 */

const e2e = setupCliE2e("arbor-resume-cli-");
const rig = new FaultRig(() => e2e.workspace);
afterEach(() => rig.cleanup());

const freshHome = () => e2e.freshDir("home");
const fileStore = (home: string) => ({ kind: "file" as const, dir: home });

async function interrupted(home: string): Promise<string> {
  return withStore(fileStore(home), async (s) => {
    const { id } = await s.createSession({ status: "running", agentId: "build", cwd: e2e.workspace });
    await s.appendMessage(id, { role: "user", content: [{ type: "text", text: "say hello" }] });
    expect((await s.getSession(id))?.status).toBe("interrupted");
    return id;
  });
}

const statusOf = (home: string, id: string) => withStore(fileStore(home), async (s) => (await s.getSession(id))?.status);
const entryCount = (home: string, id: string) => withStore(fileStore(home), async (s) => (await s.listEntries(id)).length);

describe("arbor run and an interrupted session", () => {
  it("--resume finishes the run; a second --resume says it is not interrupted", async () => {
    const home = freshHome();
    const id = await interrupted(home);
    const baseURL = await rig.fakeServer([[text("hello")]]);
    const r = await runArborInProcess(["run", "--json", "--session", id, "--resume", ...rig.modelArgs(baseURL)], { home });
    expect(r.code, r.stderr).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.at(-1)?.type).toBe("done");
    expect(
      events
        .filter((e) => e.type === "token")
        .map((e) => (e as { content: string }).content)
        .join(""),
    ).toBe("hello");
    expect(await statusOf(home, id)).toBe("completed");
    const again = await runArborInProcess(["run", "--session", id, "--resume", ...rig.modelArgs(baseURL)], { home });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("not interrupted");
    expect(rig.chatRequests()).toHaveLength(1);
  });

  it("refuses --resume with a prompt or without --session, changing nothing", async () => {
    const home = freshHome();
    const id = await interrupted(home);
    const withPrompt = await runArborInProcess(["run", "--session", id, "--resume", "go on"], { home });
    expect(withPrompt.code).toBe(2);
    expect(withPrompt.stderr).toContain("--resume takes no prompt");
    const noSession = await runArborInProcess(["run", "--resume"], { home });
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain("--resume needs --session");
    expect(await entryCount(home, id)).toBe(1);
    expect(await statusOf(home, id)).toBe("interrupted");
  });

  it("without a prompt names --resume; with one, says the run was interrupted and continues", async () => {
    const home = freshHome();
    const id = await interrupted(home);
    const bare = await runArborInProcess(["run", "--session", id], { home });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("was interrupted");
    expect(bare.stderr).toContain(`arbor run --session ${id} --resume`);
    expect(await entryCount(home, id)).toBe(1);

    const baseURL = await rig.fakeServer([[text("continued")]]);
    const r = await runArborInProcess(["run", "--json", "--session", id, ...rig.modelArgs(baseURL), "and then?"], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Session ${id} was interrupted`);
    expect(r.stderr).toContain("--resume");
  });
});

describe("arbor serve and interrupted sessions", () => {
  it("resumes them at start-up and names each; --no-resume leaves them", async () => {
    const home = freshHome();
    const id = await interrupted(home);
    const baseURL = await rig.fakeServer([[text("hello from the server")]]);

    const off = rig.start(["serve", "--port", "0", "--json", "--no-resume", ...rig.modelArgs(baseURL)], home);
    await off.waitForStdout(/\n$/);
    off.child.kill("SIGTERM");
    const offResult = await off.result;
    expect(offResult.code).toBe(0);
    expect(offResult.stderr).not.toContain("resuming");
    expect(await statusOf(home, id)).toBe("interrupted");
    expect(rig.chatRequests()).toHaveLength(0);

    const on = rig.start(["serve", "--port", "0", "--json", ...rig.modelArgs(baseURL)], home);
    await on.waitForStderr(new RegExp(`session ${id} resumed and finished`));
    // The resumed run's stream is recorded like a chat's: a client reads it back from the event log.
    const { url } = JSON.parse(on.stdout()) as { url: string };
    const stream = await (await fetch(`${url}/api/sessions/${id}/stream?last_event_id=0`)).text();
    expect(stream).toContain("hello from the server");
    expect(stream).toMatch(/"type":"done"/);
    on.child.kill("SIGTERM");
    const onResult = await on.result;
    expect(onResult.code).toBe(0);
    expect(onResult.stderr).toContain(`resuming the interrupted run of session ${id}`);
    expect(await statusOf(home, id)).toBe("completed");
    expect(rig.chatRequests()).toHaveLength(1);
  });
});
