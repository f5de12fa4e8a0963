import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hang, type StepContext, text, toolCall } from "@arbor/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { pidNamespacesWork } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { chat, chatUntil, FaultRig, jsonLines, show, storeCases } from "./helpers/fault.js";

/**
 * kill -9 of `arbor serve` during a tool call and a restart at once, as systemd's Restart=always or
 * a container's restart policy does it: the new server is pid 1 of a pid namespace of its own, as
 * its dead predecessor was, so the lease the dead one left names the new one's pid. The new server
 * must still know the holder dead, resume the run and finish it, on every store.
 */

const e2e = setupCliE2e("arbor-serve-restart-");
const OWN_PIDS = pidNamespacesWork();

beforeAll(async () => {
  await writeFile(join(e2e.workspace, "arbor.json"), JSON.stringify({ permission: { bash: { "*": "allow" } } }));
});

/** Title requests offer no tools; otherwise the answer depends on how many the model gave before. */
function step(call: StepContext) {
  const body = (call.source === "http" ? call.body : {}) as { tools?: unknown[]; messages?: Array<{ role: string }> };
  if (!body.tools) return [text("Restart")];
  switch ((body.messages ?? []).filter((m) => m.role === "assistant").length) {
    case 0:
      return [text("Ready.")];
    case 1:
      return [text("Waiting. "), toolCall("bash", { command: "sleep 60" }, { id: "slow" })];
    default:
      return [text("Finished after the restart.")];
  }
}

describe.runIf(OWN_PIDS).each(storeCases(() => e2e.dir))(
  "kill -9 of arbor serve in a container, restarted at once, on the %s store",
  (_name, makeStore) => {
    it("the restarted server, with its predecessor's pid, resumes the run cut off in a tool call and finishes it", async () => {
      const { store, drop } = await makeStore();
      const rig = new FaultRig(() => e2e.workspace);
      try {
        const baseURL = await rig.fakeServer(Array.from({ length: 20 }, () => step));
        const home = e2e.freshDir("home");
        const first = await rig.serve(baseURL, home, store, true);
        const id = (await chat(first.url, "start")).events[0]?.session_id as string;
        await chatUntil(first.url, "wait a minute", id, "tool_start");
        first.cli.child.kill("SIGKILL");

        const second = await rig.serve(baseURL, home, store, true);
        await second.cli.waitForStderr(new RegExp(`session ${id} resumed and finished`));
        const { snap } = await show(id, home, store);
        expect(snap?.session.status).toBe("completed");
        const last = snap?.entries.at(-1);
        expect(last?.type === "message" && JSON.stringify(last.message.content)).toContain("Finished after the restart.");
      } finally {
        await rig.cleanup();
        await drop();
      }
    }, 60_000);
  },
);

describe("a run whose process dies while arbor serve runs on its store", () => {
  it("is resumed by the server's next sweep, not only at its start-up", async () => {
    const rig = new FaultRig(() => e2e.workspace);
    try {
      let answered = 0;
      const baseURL = await rig.fakeServer(
        Array.from({ length: 20 }, () => (call: StepContext) => {
          const body = (call.source === "http" ? call.body : {}) as { tools?: unknown[] };
          if (!body.tools) return [text("Later")];
          // The first answer never ends: its process is killed in the middle of it.
          return answered++ === 0 ? [text("Thinking "), hang()] : [text("Answered by the server.")];
        }),
      );
      const home = e2e.freshDir("home");
      const server = await rig.serve(baseURL, home);
      const run = rig.start(["run", "--json", "--yes", ...rig.modelArgs(baseURL), "think it over"], home);
      await run.waitForStdout(/"type":"token"/);
      run.child.kill("SIGKILL");
      const id = jsonLines((await run.result).stdout)[0]?.session_id as string;

      await server.cli.waitForStderr(new RegExp(`session ${id} resumed and finished`));
      const { snap } = await show(id, home);
      expect(snap?.session.status).toBe("completed");
      const last = snap?.entries.at(-1);
      expect(last?.type === "message" && JSON.stringify(last.message.content)).toContain("Answered by the server.");
    } finally {
      await rig.cleanup();
    }
  }, 60_000);
});
