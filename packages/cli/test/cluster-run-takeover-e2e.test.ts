import { delay, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { otherHostsWork } from "./helpers/cli.js";
import { lineArrival, startInstance, withClusterRig } from "./helpers/cluster.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { jsonLines } from "./helpers/fault.js";
import { withStore } from "./helpers/seed.js";

/**
 * `arbor run` on one machine and `arbor serve --cluster` on another, over one PostgreSQL store: the
 * run's process dies mid-answer (kill -9), and the cluster takes its run over. Across machines a
 * dead holder is seen only when its lease runs out, so the lease's default life decides how long
 * the session stays stuck; with the defaults of both commands it must be taken over within 10 s.
 * Each process runs under a hostname of its own (root only), so neither can see the other's pid.
 */

const e2e = setupCliE2e("arbor-run-takeover-");

describe("a dead arbor run's session on a shared store", () => {
  it.skipIf(!otherHostsWork())(
    "is taken over by a cluster instance on another machine within 10 s, with the defaults",
    async () => {
      await withClusterRig(e2e.workspace, async (db, rig) => {
        // The first answer stalls after its first words (the run dies there); the resumed run's answer ends it.
        const baseURL = await rig.fakeServer([
          [text("Working on it. "), delay(120_000), text("never sent")],
          [text("Resumed and done.")],
        ]);
        const run = rig.start(
          ["run", "--json", "--yes", ...rig.modelArgs(baseURL, e2e.workspace), "a long answer"],
          e2e.home,
          db.url,
          "arbor-laptop",
        );
        await run.waitForStdout(/"type":"token"/);
        const sessionId = (jsonLines(run.stdout())[0] as { session_id: string }).session_id;
        const instance = await startInstance(rig, "A", {
          baseURL,
          home: e2e.home,
          store: db.url,
          takeoverMs: undefined,
          cwd: e2e.workspace,
          host: "arbor-server",
        });
        run.child.kill("SIGKILL");
        await run.result;
        const killedAt = performance.now();
        const ended = await lineArrival(instance, `session ${sessionId}'s run ended`, 30_000);
        const tookMs = ended - killedAt;
        console.log(
          `arbor run killed on one host; its run taken over and ended on another after ${(tookMs / 1000).toFixed(1)} s`,
        );
        expect(tookMs).toBeLessThan(10_000);
        const snap = await withStore(db.url, (s) => s.getSnapshot(sessionId));
        const texts = snap?.entries.flatMap((e) =>
          e.type === "message" && e.message.role === "assistant" ? [JSON.stringify(e.message.content)] : [],
        );
        expect(texts?.join("")).toContain("Resumed and done.");
      });
    },
    60_000,
  );
});
