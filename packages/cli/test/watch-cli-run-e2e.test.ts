import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WatchMessage } from "@arbor/core";
import { text } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { watchSocket } from "../../server/test/helpers/watch-socket.js";
import { FaultRig, storeCases } from "./helpers/fault.js";

/**
 * Every run records itself: `arbor run` in one process publishes its trace's watch events to the
 * store's log, and a WebSocket watcher of `arbor serve` (another process over the same store) sees
 * them live, in order, from `trace_started` to `trace_completed`.
 */

let dir: string;
let home: string;
const rig = new FaultRig(() => join(dir, "ws"));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-watch-cli-run-"));
  home = join(dir, "home");
  await mkdir(join(dir, "ws"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => rig.cleanup());

const named = (m: WatchMessage) => (m.event === "message_added" ? `message_added:${m.message.role}` : m.event);

describe.each(storeCases(() => dir))("a watcher on arbor serve of a run arbor run drives (%s store)", (_name, makeStore) => {
  it("sees trace_started, each message_added and trace_completed live, in order", async () => {
    const { store, drop } = await makeStore();
    try {
      const baseURL = await rig.fakeServer([[text("Watched from afar", { chunks: 2 })]]);
      const { url } = await rig.serve(baseURL, home, store);
      // The watch needs the trace to exist: the session is made first, then watched, then run by the CLI.
      const created = (await (
        await fetch(`${url}/api/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        })
      ).json()) as { id: string };
      const watcher = watchSocket(`${url}/api/traces/${created.id}/watch`);
      await watcher.when((m) => m.event === "connected");
      expect(watcher.received[0]).toMatchObject({ event: "connected", current_event_id: 0 });

      const run = rig.start(["run", "--session", created.id, ...rig.modelArgs(baseURL), "say something"], home, store);
      expect((await run.result).code).toBe(0);
      await watcher.when((m) => m.event === "trace_completed");

      // Connected at id 0, so every event came live, not from the backlog.
      expect(watcher.logged().map(named)).toEqual([
        "trace_started",
        "message_added:user",
        "message_added:assistant",
        "trace_completed",
      ]);
      expect(watcher.logged()[0]).toMatchObject({ event: "trace_started", kind: "prompt", agent: "build" });
      expect(watcher.logged().at(-1)).toMatchObject({ event: "trace_completed", status: "done", stats: { total_messages: 2 } });
      const ids = watcher.ids();
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      watcher.ws.close();
    } finally {
      await rig.cleanup();
      await drop();
    }
  });
});
