import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { newHolder } from "../src/store/lease.js";
import { openStore } from "../src/store/open.js";
import { expectCode } from "./conformance/sessions-suite.js";
import { fileStoreEach } from "./helpers/file-store-each.js";

// The file store keeps the lease files it gives back as spares and makes its next leases of them, so
// that a lease taken and given back allocates and frees no inode (see spare-locks.ts). These tests
// check that the files are recycled, that other stores see the leases exactly as before, and that no
// spare outlives its store: closed, or its process dead.

const t = fileStoreEach("arbor-lease-spares-");
const leases = () => join(t.dir, "leases");
const leaseFile = (id: string) => join(leases(), `${createHash("sha256").update(id).digest("hex").slice(0, 40)}.lease`);
const named = (suffix: string) => readdirSync(leases()).filter((n) => n.endsWith(suffix));
const DEAD_PID = 2 ** 22 + 7;

/** `n` (at least two) new sessions' ids. */
async function sessions(n: number): Promise<[string, string, ...string[]]> {
  const ids: string[] = [];
  for (let i = 0; i < Math.max(n, 2); i++) ids.push((await t.store.createSession()).id);
  return ids as [string, string, ...string[]];
}

describe("lease files recycled as spares", () => {
  it("a lease given back is kept as a spare, and the next lease is that file", async () => {
    const [a, b] = await sessions(2);
    await (await t.store.acquireLease(a, "a test")).release();
    expect(named(".lease")).toEqual([]);
    const [spare] = named(".spare");
    expect(spare).toBeDefined();
    const ino = statSync(join(leases(), spare as string)).ino;

    const lease = await t.store.acquireLease(b, "a test");
    expect(statSync(leaseFile(b)).ino).toBe(ino);
    expect(statSync(leaseFile(b)).nlink).toBe(1);
    expect(named(".spare")).toEqual([]);
    expect(JSON.parse(readFileSync(leaseFile(b), "utf8"))).toEqual(lease.holder);
    await lease.release();
  });

  it("a spare written over by a shorter holder holds that holder alone (cut to its length)", async () => {
    const [a, b] = await sessions(2);
    await (await t.store.acquireLease(a, `a long purpose ${"x".repeat(300)}`)).release();
    const [spare] = named(".spare");
    const before = statSync(join(leases(), spare as string)).size;

    const lease = await t.store.acquireLease(b, "short");
    const text = readFileSync(leaseFile(b), "utf8");
    expect(text.length).toBeLessThan(before);
    expect(JSON.parse(text)).toEqual(lease.holder);
    await lease.release();
  });

  it("cycles of leases leave no more files than the pool of spares, and make no new one in steady state", async () => {
    const ids = await sessions(20);
    const inodes = new Set<number>();
    for (let round = 0; round < 3; round++) {
      for (const id of ids) {
        const lease = await t.store.acquireLease(id, "a test");
        inodes.add(statSync(leaseFile(id)).ino);
        await lease.release();
      }
    }
    expect(inodes.size).toBe(1);
    // Twenty held at once, then given back: sixteen are kept, the rest removed.
    const held = await Promise.all(ids.map((id) => t.store.acquireLease(id, "a test")));
    for (const lease of held) await lease.release();
    expect(named(".lease")).toEqual([]);
    expect(named(".spare")).toHaveLength(16);
  });

  it("another store sees a lease made of a spare as any other, and none once it is given back", async () => {
    const [a, b] = await sessions(2);
    await (await t.store.acquireLease(a, "a test")).release();
    const lease = await t.store.acquireLease(b, "the holder under test");
    const other = await openStore(t.dir);
    try {
      const err = await expectCode(other.acquireLease(b, "another"), "session_busy");
      expect(err.message).toContain("the holder under test");
      expect(err.details).toMatchObject({ holder: { pid: process.pid, purpose: "the holder under test" } });
      expect((await other.leaseHolder(b))?.token).toBe(lease.holder.token);
      await lease.release();
      expect(await other.leaseHolder(b)).toBeUndefined();
      await (await other.acquireLease(b, "another")).release();
    } finally {
      await other.close();
    }
  });

  it("a spare removed under its store (swept by another process) is replaced by a new file", async () => {
    const [a, b] = await sessions(2);
    await (await t.store.acquireLease(a, "a test")).release();
    for (const name of named(".spare")) unlinkSync(join(leases(), name));
    const lease = await t.store.acquireLease(b, "a test");
    expect(JSON.parse(readFileSync(leaseFile(b), "utf8")).token).toBe(lease.holder.token);
    await lease.release();
  });

  it("closing the store removes its spares", async () => {
    const ids = await sessions(3);
    const held = await Promise.all(ids.map((id) => t.store.acquireLease(id, "a test")));
    await held[0]?.release();
    expect(named(".spare")).toHaveLength(1);
    await t.store.close();
    expect(named(".spare")).toEqual([]);
    expect(named(".lease")).toEqual([]);
    // A lease given back after the close is removed, not kept.
    await held[1]?.release();
    expect(named(".spare")).toEqual([]);
    await t.openAgain();
  });

  it("the spares of a process that died without closing its store are removed when a store opens", async () => {
    const ids = await sessions(2);
    await t.store.close();
    const script = fileURLToPath(new URL("./fixtures/lease-cycles-then-die.mjs", import.meta.url));
    execFileSync(process.execPath, [script, t.dir, ...ids]);
    expect(named(".spare")).toHaveLength(1);
    await (await t.openAgain()).createSession();
    expect(named(".spare")).toEqual([]);
  });

  it("opening a store removes the spares of dead processes and keeps those of live ones, however old", async () => {
    const write = (name: string, holder: object, ageMs = 0) => {
      const path = join(leases(), name);
      writeFileSync(path, JSON.stringify(holder));
      const then = new Date(Date.now() - ageMs);
      utimesSync(path, then, then);
    };
    const hour = 3_600_000;
    mkdirSync(leases(), { recursive: true });
    write("dead-0.spare", { ...newHolder("a crashed run"), pid: DEAD_PID, process: undefined });
    write("live-0.spare", newHolder("a live run"), hour);
    write("elsewhere-old-0.spare", { ...newHolder("a run elsewhere"), host: `${hostname()}-elsewhere` }, hour);
    write("elsewhere-new-0.spare", { ...newHolder("a run elsewhere"), host: `${hostname()}-elsewhere` });
    // The store's files and leases load on its first write (see LazyFileStore): the sweep runs then.
    await (await t.reopen()).createSession();
    expect(named(".spare").sort()).toEqual(["elsewhere-new-0.spare", "live-0.spare"]);
  });
});
