import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Entry, Message, RunEvent, Snapshot } from "@arbor/core";
import { hang, type Script, text, toolCall } from "@arbor/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arbor, type RunningCli } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { chat, chatUntilToken, FaultRig, show, storeCases, unpairedCalls, userTexts } from "./helpers/fault.js";
import { runArborInProcess } from "./helpers/in-process.js";

/**
 * Faults across real processes: the built `arbor` beside `arbor serve` on one store, two servers on
 * one SQL store, kill -9 and SIGTERM in the middle of a tool call. Each case prints its figures.
 */

const e2e = setupCliE2e("arbor-fault-e2e-");
const rig = new FaultRig(() => e2e.workspace);
const strayPids = rig.strayPids;
afterEach(() => rig.cleanup());

const freshHome = e2e.freshDir;

const fakeServer = (script: Script) => rig.fakeServer(script);
const modelArgs = (baseURL: string) => rig.modelArgs(baseURL);
const start = (args: string[], home: string, store?: string) => rig.start(args, home, store);
const serve = (baseURL: string, home: string, store?: string) => rig.serve(baseURL, home, store);

describe("two processes on one file store", () => {
  it("a CLI run beside a running server: every turn of both is kept and the session stays readable", async () => {
    const rounds = 3;
    const baseURL = await fakeServer(Array.from({ length: rounds * 2 }, (_, i) => [text(`answer ${i}`)]));
    const home = freshHome("beside");
    const { url } = await serve(baseURL, home);
    const first = await chat(url, "server 0");
    const id = first.events[0]?.session_id as string;
    const sent = ["server 0"];
    for (let i = 0; i < rounds; i++) {
      if (i > 0) {
        expect((await chat(url, `server ${i}`, id)).events.at(-1)?.type).toBe("done");
        sent.push(`server ${i}`);
      }
      const cli = await arbor(["run", "--json", "--session", id, ...modelArgs(baseURL), `cli ${i}`], { home });
      expect(cli.code, cli.stderr).toBe(0);
      sent.push(`cli ${i}`);
    }
    const shown = await show(id, home);
    expect(shown.code, shown.stderr).toBe(0);
    const kept = userTexts(shown.snap as Snapshot);
    const lost = sent.filter((t) => !kept.includes(t));
    console.log(`file store, CLI beside server: ${sent.length} turns, ${lost.length} lost, session readable`);
    expect(lost).toEqual([]);
    expect((shown.snap as Snapshot).activePath).toHaveLength(sent.length * 2);
  });

  it("a session the server drives: the CLI's prompt steers its run, a delete is refused with session_busy naming the server", async () => {
    const baseURL = await fakeServer([[text("first")], [text("Working"), hang()]]);
    const home = freshHome("busy");
    const { url, cli: server } = await serve(baseURL, home);
    const id = (await chat(url, "start")).events[0]?.session_id as string;
    await chatUntilToken(url, "take your time", id);
    const run = await arbor(["run", "--session", id, ...modelArgs(baseURL), "intrude"], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Sent to the run in progress in session ${id} (arbor serve)`);
    const rm = await arbor(["sessions", "rm", id], { home });
    expect(rm.code).not.toBe(0);
    expect(rm.stderr).toContain("arbor serve");
    expect((await fetch(`${url}/api/sessions/${id}/abort`, { method: "POST" })).status).toBeLessThan(300);
    server.child.kill("SIGTERM");
    expect((await server.result).code).toBe(0);
    const shown = await show(id, home);
    expect(userTexts(shown.snap as Snapshot)).toEqual(["start", "take your time"]);
  });
});

describe.each(storeCases(() => e2e.dir).filter(([name]) => name !== "file"))(
  "two servers on one %s store",
  (_name, makeStore) => {
    it("the second answers 409 to a chat, a leaf move, a label and a delete while the first runs the session", async () => {
      const { store, drop } = await makeStore();
      try {
        const baseURL = await fakeServer([[text("first")], [text("Working"), hang()], [text("after")]]);
        const home = freshHome("two");
        const a = await serve(baseURL, home, store);
        const b = await serve(baseURL, home, store);
        const first = await chat(a.url, "start");
        const id = first.events[0]?.session_id as string;
        const snap = (await (await fetch(`${b.url}/api/sessions/${id}`)).json()) as Snapshot;
        const root = snap.activePath[0] as string;
        await chatUntilToken(a.url, "take your time", id);
        const post = (path: string, body: unknown) =>
          fetch(`${b.url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          });
        const refused = [
          await post("/api/chat", { message: "intrude", session_id: id, busy: "reject" }),
          await post(`/api/sessions/${id}/leaf`, { entry_id: root }),
          await post(`/api/sessions/${id}/labels`, { entry_id: root, label: "x" }),
          await fetch(`${b.url}/api/sessions/${id}`, { method: "DELETE" }),
        ];
        const statuses = refused.map((r) => r.status);
        console.log(`two servers on ${_name}: second server answered ${statuses.join(", ")} while the first ran`);
        expect(statuses).toEqual([409, 409, 409, 409]);
        expect(JSON.stringify(await refused[0]?.json())).toContain("arbor serve");
        // Without busy: reject, the second server hands the message to the first server's run.
        const steered = await post("/api/chat", { message: "steer", session_id: id });
        expect(steered.status).toBe(202);
        await fetch(`${a.url}/api/sessions/${id}/abort`, { method: "POST" });
        // Once the first server's run ended, the second may drive the session.
        let after = await chat(b.url, "after", id);
        for (let i = 0; after.status === 409 && i < 50; i++) after = await chat(b.url, "after", id);
        expect(after.events.at(-1)?.type).toBe("done");
        const path = ((await (await fetch(`${a.url}/api/sessions/${id}`)).json()) as Snapshot).activePath;
        expect(path[0]).toBe(root);
        for (const s of [a.cli, b.cli]) s.child.kill("SIGTERM");
        expect((await a.cli.result).code).toBe(0);
        expect((await b.cli.result).code).toBe(0);
      } finally {
        await drop();
      }
    });
  },
);

describe("a crash or a stop in the middle of a tool call", () => {
  // These cases watch the tool's own process on the host (its pid, whether it outlives arbor), which
  // the OS sandbox hides in a PID namespace of its own: they run unsandboxed, as on a machine without
  // bubblewrap. The sandbox's own guarantee (nothing outlives the call) is in its escape suite.
  beforeEach(() => writeFileSync(join(e2e.workspace, "arbor.json"), JSON.stringify({ sandbox: { mode: "off" } })));
  const sleeper = (pidFile: string) => toolCall("bash", { command: `echo $$ > ${pidFile}; exec sleep 30` });

  async function runUntilTool(
    home: string,
    baseURL: string,
    args: string[],
    pidFile: string,
    store?: string,
  ): Promise<RunningCli> {
    const run = start(["run", "--json", "--yes", ...modelArgs(baseURL), ...args], home, store);
    await run.waitForStdout(/"type":"tool_start"/);
    // The tool's shell writes its pid once it starts; the permission check (a shell parse) comes first.
    const deadline = Date.now() + 20_000;
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
      if (Date.now() > deadline) throw new Error("the tool never started");
      await new Promise((r) => setTimeout(r, 5));
    }
    return run;
  }

  it.each(storeCases(() => e2e.dir))(
    "kill -9 on the %s store leaves a session that reads as interrupted and continues with every call answered",
    async (name, makeStore) => {
      const trials = 3;
      let unusable = 0;
      let stuckRunning = 0;
      const { store, drop } = await makeStore();
      for (let t = 0; t < trials; t++) {
        const pidFile = join(e2e.dir, `kill-${name}-${t}.pid`);
        const baseURL = await fakeServer([[sleeper(pidFile)], [text("continued")]]);
        const home = freshHome("kill");
        const run = await runUntilTool(home, baseURL, ["sleep please"], pidFile, store);
        strayPids.push(Number(readFileSync(pidFile, "utf8")));
        const id = (JSON.parse(run.stdout().split("\n")[0] as string) as RunEvent).session_id;
        run.child.kill("SIGKILL");
        await run.result;
        const shown = await show(id, home, store);
        expect(shown.code, shown.stderr).toBe(0);
        if (shown.snap?.session.status !== "interrupted") stuckRunning++;
        const storeArgs = store ? ["--store", store] : [];
        // In this process: what is checked is the session the kill left, not the continuing run's process.
        const next = await runArborInProcess(["run", "--json", "--session", id, ...storeArgs, ...modelArgs(baseURL), "go on"], {
          home,
        });
        const body = rig.chatRequests().at(-1);
        if (next.code !== 0 || unpairedCalls(body) > 0) unusable++;
        await rig.closeFake();
      }
      await drop();
      console.log(`kill -9 mid-tool (${name} store): ${trials} trials, ${stuckRunning} left running, ${unusable} unusable`);
      expect({ stuckRunning, unusable }).toEqual({ stuckRunning: 0, unusable: 0 });
    },
    120_000,
  );

  it("SIGTERM stops the run like Ctrl-C: exit 130, the tool's process ended, the call recorded as interrupted", async () => {
    const pidFile = join(e2e.dir, "term.pid");
    const baseURL = await fakeServer([[sleeper(pidFile)]]);
    const home = freshHome("term");
    const run = await runUntilTool(home, baseURL, ["sleep please"], pidFile);
    const toolPid = Number(readFileSync(pidFile, "utf8"));
    strayPids.push(toolPid);
    run.child.kill("SIGTERM");
    const r = await run.result;
    expect(r.code, r.stderr).toBe(130);
    expect(() => process.kill(toolPid, 0)).toThrow();
    const id = (JSON.parse(r.stdout.split("\n")[0] as string) as RunEvent).session_id;
    const shown = await show(id, home);
    expect(shown.snap?.session.status).toBe("aborted");
    const tool = (shown.snap as Snapshot).entries
      .filter((e): e is Extract<Entry, { type: "message" }> => e.type === "message")
      .map((e) => e.message as Message)
      .find((m) => m.role === "tool");
    expect(JSON.stringify(tool)).toContain("interrupted");
  });
});
