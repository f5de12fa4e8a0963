import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunEventTail } from "../../src/events/run-event-tail.js";
import { BatchWriter } from "../../src/events/run-event-writer.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { openStore } from "../../src/store/open.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the run event writer", () => {
  it("writes a burst of streamed deltas in a few appends, every one in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-batch-writer-"));
    dirs.push(dir);
    const store = await openStore({ kind: "file", dir });
    try {
      const { id } = await store.createSession();
      let appends = 0;
      const append = store.appendEvents.bind(store);
      store.appendEvents = (sessionId, inputs) => {
        appends++;
        return append(sessionId, inputs);
      };
      const tail = new RunEventTail(id, 10_000);
      const writer = new BatchWriter(store, tail, undefined, undefined);
      // A model's stream hands over its deltas a few microtasks apart, as the loop does.
      for (let n = 0; n < 1_000; n++) {
        writer.push({ type: "token", session_id: id, content: `t${n}` } as RunEvent);
        await Promise.resolve();
        await Promise.resolve();
      }
      await writer.finish();
      // 1,000 events in batches of at most 512: two appends, not one per delta or two.
      expect(appends).toBeLessThanOrEqual(3);
      const logged = await store.listEvents(id, { limit: 2_000 });
      expect(logged.map((e) => (e.data as { content: string }).content)).toEqual(
        Array.from({ length: 1_000 }, (_, n) => `t${n}`),
      );
    } finally {
      await store.close();
    }
  });
});
