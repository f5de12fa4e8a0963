import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { type MakeHarness, twoInstancesPerTest } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

const text = (t: string) => ({ role: "user" as const, content: t });

/**
 * One driver per session across processes. A second store instance over the same data stands for
 * a second process (the real-process cases, kill -9 included, are in the fault tests).
 */
export function leaseSuite(makeHarness: MakeHarness): void {
  describe("session leases", () => {
    // Inside the describe: its hooks then make a harness for this suite's tests only, not for every
    // test of the whole conformance run.
    const h = twoInstancesPerTest(makeHarness);

    it("a second lease is refused with session_busy naming the holder, until the first is released", async () => {
      const { id } = await h.store.createSession();
      const lease = await h.store.acquireLease(id, "arbor serve");
      expect(lease.holder).toMatchObject({ pid: process.pid, host: hostname(), purpose: "arbor serve" });
      const err = await expectCode(h.other.acquireLease(id, "arbor run"), "session_busy");
      expect(err.message).toContain("arbor serve");
      expect(err.message).toContain(`pid ${process.pid}`);
      expect(err.details).toMatchObject({ holder: { pid: process.pid, host: hostname(), purpose: "arbor serve" } });
      await expectCode(h.store.acquireLease(id, "again"), "session_busy");
      expect(await h.other.leaseHolder(id)).toMatchObject({ purpose: "arbor serve" });
      await lease.release();
      await lease.release();
      expect(await h.other.leaseHolder(id)).toBeUndefined();
      const second = await h.other.acquireLease(id, "arbor run");
      expect(await h.store.leaseHolder(id)).toMatchObject({ purpose: "arbor run" });
      await second.release();
    });

    it("the inbox takes messages from another instance while the lease is held; the holder reads them in order, once", async () => {
      const { id } = await h.store.createSession();
      const lease = await h.store.acquireLease(id, "a run");
      const start = await h.store.readInbox(id);
      expect(start.messages).toEqual([]);
      const first = await h.other.postInbox(id, "first");
      const second = await h.store.postInbox(id, "second");
      await h.store.appendEvents(id, [{ type: "token", data: { content: "not a message" } }]);
      const third = await h.other.postInbox(id, "third");
      const read = await h.store.readInbox(id, start.cursor);
      expect(read.messages.map((m) => [m.id, m.text])).toEqual([
        [first.id, "first"],
        [second.id, "second"],
        [third.id, "third"],
      ]);
      expect(Number.isNaN(Date.parse(read.messages[0]!.at))).toBe(false);
      expect((await h.store.readInbox(id, read.cursor)).messages).toEqual([]);
      // The session's journal is untouched by them.
      expect(await h.store.listEntries(id)).toEqual([]);
      await lease.release();
      await expectCode(h.other.postInbox("no-such-session", "hi"), "session_not_found");
    });

    it("a lease can be taken before its session exists", async () => {
      const id = "lease-before-create";
      const lease = await h.store.acquireLease(id, "a run");
      await h.store.createSession({ id });
      await h.store.appendMessage(id, text("hi"));
      await expectCode(h.other.appendMessage(id, text("no")), "session_busy");
      await lease.release();
    });

    it("refuses every write from another instance while held, and lets reads see the holder's writes", async () => {
      const { id } = await h.store.createSession();
      const first = await h.store.appendMessage(id, text("one"));
      const lease = await h.store.acquireLease(id, "a run");
      const second = await h.store.appendMessage(id, text("two"));
      await expectCode(h.other.appendMessage(id, text("intruder")), "session_busy");
      await expectCode(h.other.appendEntries(id, [{ type: "custom", customType: "x" }]), "session_busy");
      await expectCode(h.other.switchLeaf(id, first.id), "session_busy");
      await expectCode(h.other.resetLeaf(id), "session_busy");
      await expectCode(h.other.appendLabelChange(id, first.id, "mark"), "session_busy");
      await expectCode(h.other.updateSession(id, { title: "other" }), "session_busy");
      await expectCode(h.other.updateEntry(id, first.id, { customType: "y" }), "session_busy");
      await expectCode(h.other.deleteSession(id), "session_busy");
      expect((await h.other.getActivePath(id)).map((e) => e.id)).toEqual([first.id, second.id]);
      const third = await h.store.appendMessage(id, text("three"));
      await lease.release();
      expect((await h.store.listEntries(id)).map((e) => e.id)).toEqual([first.id, second.id, third.id]);
    });

    it("appends from two instances taking turns are all kept, each seeing the other's", async () => {
      const { id } = await h.store.createSession();
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const store = i % 2 === 0 ? h.store : h.other;
        const lease = await store.acquireLease(id, `turn ${i}`);
        ids.push((await store.appendMessage(id, text(`turn ${i}`))).id);
        await lease.release();
        // Without a lease too: the write catches up with what the other wrote first.
        ids.push((await store.appendMessage(id, text(`unleased ${i}`))).id);
      }
      const path = await (await h.reopen()).getActivePath(id);
      expect(path.map((e) => e.id)).toEqual(ids);
      expect(path.map((e) => e.parentId)).toEqual([null, ...ids.slice(0, -1)]);
    });

    it("deletes and runs exclude each h.other, for the session and its sub-sessions", async () => {
      const { id } = await h.store.createSession();
      const child = await h.store.createSession({ parentSessionId: id });
      const own = await h.store.acquireLease(id, "a run");
      await expectCode(h.store.deleteSession(id), "session_busy");
      await own.release();
      const lease = await h.other.acquireLease(child.id, "a sub-run");
      await expectCode(h.store.deleteSession(id), "session_busy");
      expect(await h.store.getSession(id)).toBeDefined();
      expect(await h.store.getSession(child.id)).toBeDefined();
      await lease.release();
      await h.store.deleteSession(id);
      expect(await h.other.getSession(child.id)).toBeUndefined();
    });

    it("a session left running with nothing driving it reads as interrupted", async () => {
      const { id } = await h.store.createSession({ status: "running" });
      const child = await h.store.createSession({ parentSessionId: id, status: "running" });
      expect((await h.other.getSession(id))?.status).toBe("interrupted");
      expect((await h.other.getSession(child.id))?.status).toBe("interrupted");
      expect((await h.other.getSnapshot(id)).session.status).toBe("interrupted");
      const lease = await h.store.acquireLease(id, "a run");
      expect((await h.other.getSession(id))?.status).toBe("running");
      // A sub-trace runs under its parent's run.
      expect((await h.other.getSession(child.id))?.status).toBe("running");
      const listed = (await h.other.listSessions()).sessions.map((s) => s.status);
      expect(listed).toEqual(["running", "running"]);
      await lease.release();
      expect((await h.other.listSessions()).sessions.map((s) => s.status)).toEqual(["interrupted", "interrupted"]);
      await h.store.updateSession(id, { status: "completed" });
      expect((await h.other.getSession(id))?.status).toBe("completed");
    });
  });
}
