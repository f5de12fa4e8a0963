import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open.js";
import type { StoreSpec } from "../src/store/spec.js";
import type { Store } from "../src/store/store.js";

/**
 * A lease's heartbeat is a timer, and a timer runs only when the event loop turns. A caller that
 * holds a lease and writes in a loop whose awaits never leave the microtask queue (the file store's
 * and SQLite's writes do no asynchronous I/O) starves it: the lease went stale in the store's view
 * (another process could take the session while this one kept writing) and, on SQLite, its own
 * writes were then refused as `session_busy`. Writes now send the renewal that is due.
 */
const TTL_MS = 300;
const specs: Array<{ kind: string; spec: (dir: string) => StoreSpec }> = [
  { kind: "file", spec: (dir) => ({ kind: "file", dir, leaseTtlMs: TTL_MS }) },
  { kind: "sqlite", spec: (dir) => ({ kind: "sqlite", file: join(dir, "s.db"), durability: "process", leaseTtlMs: TTL_MS }) },
];

describe("a lease holder that never lets the event loop turn", () => {
  const open: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it.each(specs)("keeps its lease on the $kind store while it writes for longer than the lease lives", async ({ spec }) => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-busy-holder-"));
    dirs.push(dir);
    const store = await openStore(spec(dir));
    open.push(store);
    const { id } = await store.createSession();
    const lease = await store.acquireLease(id, "bulk writer");
    const started = performance.now();
    let writes = 0;
    // Three lease lives of writes; every await here resolves within the microtask queue.
    while (performance.now() - started < 3 * TTL_MS) {
      await store.appendMessage(id, { role: "user", content: `line ${writes}` });
      writes += 1;
    }
    expect(writes).toBeGreaterThan(100);
    expect(lease.lost.aborted).toBe(false);
    // Still this store's in every other instance's view: the lease was renewed as the writes went.
    const other = await openStore(spec(dir));
    open.push(other);
    expect((await other.leaseHolder(id))?.token).toBe(lease.holder.token);
    await expect(other.acquireLease(id, "intruder")).rejects.toMatchObject({ code: "session_busy" });
    await lease.release();
  });
});
