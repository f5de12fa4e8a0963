import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ArborError } from "../src/errors.js";
import { WriteBursts } from "../src/store/file/write-burst.js";
import { openStore } from "../src/store/open.js";

/**
 * The file store's write lock kept for a burst of writes: reused while it lasts, given back soon after
 * the last write, and never taken again ahead of a process that noted it is waiting.
 */

let dir: string;
let lock: string;
const busy = () => new ArborError("session_busy", "busy");

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "arbor-burst-"));
  lock = join(dir, "s.write");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A burst's end as a promise, so a test waits for it rather than for time. */
function endSignal(): { ended: () => void; done: Promise<void> } {
  let ended = () => {};
  const done = new Promise<void>((resolve) => {
    ended = resolve;
  });
  return { ended, done };
}

describe("WriteBursts", () => {
  it("holds the lock file while writing and gives it back after the burst's last write", async () => {
    const bursts = new WriteBursts({ purpose: "a test", ttlMs: 10_000, waitMs: 1_000 });
    const end = endSignal();
    const first = await bursts.run("s", lock, end.ended, () => existsSync(lock), busy);
    expect(first).toBe(true);
    await end.done;
    // The lock file goes right after `ended`, within the same turn.
    await Promise.resolve();
    expect(existsSync(lock)).toBe(false);
    expect(bursts.holds("s")).toBe(false);
    const again = endSignal();
    const generations = [await bursts.run("s", lock, again.ended, (g) => g, busy)];
    bursts.endAll();
    await again.done;
    expect(existsSync(lock)).toBe(false);
    generations.push(
      await bursts.run(
        "s",
        lock,
        () => {},
        (g) => g,
        busy,
      ),
    );
    // A burst taken afresh is told apart from the one before: what was checked in that one is checked again.
    expect(generations[1]).toBeGreaterThan(generations[0] as number);
    bursts.endAll();
  });

  it("after a burst used throughout, leaves the lock free for a pause when another process waits, then takes it", async () => {
    vi.useFakeTimers();
    try {
      const bursts = new WriteBursts({ purpose: "a test", ttlMs: 10_000, waitMs: 1_000 });
      await bursts.run(
        "s",
        lock,
        () => {},
        () => "written",
        busy,
      );
      writeFileSync(`${lock}.want`, "another waiter's token");
      // The next write comes after the burst's length (its idle end not yet due): the lock is taken afresh.
      vi.setSystemTime(Date.now() + 10);
      const yielding = bursts.run(
        "s",
        lock,
        () => {},
        () => "written",
        busy,
      );
      // The first try runs before run() returns: with a waiter noted, it leaves the lock free.
      expect(existsSync(lock)).toBe(false);
      await vi.advanceTimersByTimeAsync(5);
      await expect(yielding).resolves.toBe("written");
      bursts.endAll();
      // A take after the lock was idle does not yield.
      const direct = bursts.run(
        "s",
        lock,
        () => {},
        () => "written",
        busy,
      );
      expect(existsSync(lock)).toBe(true);
      await expect(direct).resolves.toBe("written");
      bursts.endAll();
    } finally {
      vi.useRealTimers();
    }
  });

  it("a waiter notes itself in .want while the lock is held and removes its note once it has the lock", async () => {
    const holder = new WriteBursts({ purpose: "a test", ttlMs: 10_000, waitMs: 1_000 });
    const waiter = new WriteBursts({ purpose: "a test", ttlMs: 10_000, waitMs: 2_000 });
    let noted = false;
    // The holder's work waits until the waiter's note appears, so the waiter is known to have waited.
    const held = holder.run(
      "s",
      lock,
      () => {},
      async () => {
        while (!existsSync(`${lock}.want`)) await new Promise((resolve) => setImmediate(resolve));
        noted = true;
      },
      busy,
    );
    const waited = waiter.run(
      "s",
      lock,
      () => {},
      () => existsSync(lock),
      busy,
    );
    await held;
    expect(noted).toBe(true);
    expect(await waited).toBe(true);
    expect(existsSync(`${lock}.want`)).toBe(false);
    waiter.endAll();
    holder.endAll();
  });
});

describe("the file store's reads beside another process's burst", () => {
  it("a read while a write of this store waits for the other's lock sees what the other acknowledged", async () => {
    const a = await openStore(join(dir, "store"));
    const b = await openStore(join(dir, "store"));
    try {
      const { id } = await a.createSession();
      await a.appendMessage(id, { role: "user", content: "from a" });
      // b's append keeps the write lock for its burst; a's next append queues behind it.
      const fromB = await b.appendMessage(id, { role: "user", content: "from b" });
      const queued = a.appendMessage(id, { role: "user", content: "a again" });
      // While a's own write waits, its loaded copy of the session may be behind the disk: it is read again.
      expect((await a.listEntries(id)).map((e) => e.id)).toContain(fromB.id);
      await queued;
      expect((await b.listEntries(id)).length).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
