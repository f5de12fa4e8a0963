import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/model/entry.js";
import type { Store } from "../../src/store/store.js";
import { harnessPerTest, type MakeHarness } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

const SECRET = "my passport number is X1234567";
const mark = { at: "2026-01-02T03:04:05.000Z", messageId: "m1" };

/** A question, an answer that called a tool, the tool's result (updated once) and a later question. */
async function conversation(store: Store) {
  const { id } = await store.createSession();
  const question = await store.appendMessage(id, { role: "user", content: `hello, ${SECRET}` });
  const answer = await store.appendMessage(id, {
    role: "assistant",
    content: [
      { type: "reasoning", text: `they said ${SECRET}` },
      { type: "tool-call", toolCallId: "c1", toolName: "note", input: { text: SECRET } },
    ],
    tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    cost: 0.5,
  });
  const result = await store.appendMessage(id, {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "c1", toolName: "note", output: { type: "text", value: SECRET } }],
  });
  // An update leaves a second version of the entry behind in an append-only layout: it must go too.
  await store.updateEntry(id, result.id, { note: `updated ${SECRET}` });
  const later = await store.appendMessage(id, { role: "user", content: "something else" });
  return { id, question, answer, result, later };
}

function expectTombstone(entry: Entry | undefined, original: Entry): void {
  expect(entry).toMatchObject({ id: original.id, parentId: original.parentId, type: "message", timestamp: original.timestamp });
  expect(entry?.type === "message" && entry.message.content).toEqual([]);
  expect(entry?.type === "message" && entry.message.role).toBe(original.type === "message" && original.message.role);
  expect((entry as Record<string, unknown>).purged).toEqual(mark);
  expect(JSON.stringify(entry)).not.toContain("X1234567");
}

/** Erasing messages for good: every backend keeps the tree and drops every copy of the content. */
export function purgeSuite(makeHarness: MakeHarness): void {
  describe("erasing: purgeEntries, purgeEvents", () => {
    const h = harnessPerTest(makeHarness);

    it("replaces each entry by its tombstone everywhere the store reads it, keeping ids, parents and order", async () => {
      const c = await conversation(h.store);
      const before = await h.store.listEntries(c.id);
      const totals = await h.store.getSession(c.id);
      const ids = [c.question.id, c.answer.id, c.result.id];
      const tombs = await h.store.purgeEntries(c.id, ids, mark);
      expect(tombs.map((t) => t.id)).toEqual(ids);
      const check = async (store: Store) => {
        const after = await store.listEntries(c.id);
        expect(after.map((e) => [e.id, e.parentId, e.type])).toEqual(before.map((e) => [e.id, e.parentId, e.type]));
        for (const original of [c.question, c.answer, c.result])
          expectTombstone(await store.getEntry(c.id, original.id), original);
        expect((await store.getEntry(c.id, c.later.id))?.type === "message").toBe(true);
        expect((await store.getActivePath(c.id)).map((e) => e.id)).toEqual(before.map((e) => e.id));
        expect(JSON.stringify(await store.exportSession(c.id))).not.toContain("X1234567");
        expect(JSON.stringify(await store.getSnapshot(c.id))).not.toContain("X1234567");
        expect(JSON.stringify(await store.getLivePath(c.id))).not.toContain("X1234567");
        // What the messages cost is no one's words: the session's totals stay.
        const meta = await store.getSession(c.id);
        expect([meta?.totalTokens, meta?.totalCost, meta?.leafEntryId]).toEqual([
          totals?.totalTokens,
          totals?.totalCost,
          totals?.leafEntryId,
        ]);
      };
      await check(h.store);
      await check(await h.another());
      await check(await h.reopen());
    });

    it("keeps working after the purge: appends land after the leaf and read back on reopen", async () => {
      const c = await conversation(h.store);
      await h.store.purgeEntries(c.id, [c.question.id], mark);
      const next = await h.store.appendMessage(c.id, { role: "user", content: "after the purge" });
      expect(next.parentId).toBe(c.later.id);
      await h.store.updateEntry(c.id, next.id, { note: "kept" });
      const reopened = await h.reopen();
      const entries = await reopened.listEntries(c.id);
      expect(entries.map((e) => e.id)).toEqual([c.question.id, c.answer.id, c.result.id, c.later.id, next.id]);
      expect(entries.at(-1)).toMatchObject({ id: next.id, note: "kept" });
      expectTombstone(entries[0], c.question);
      expect(JSON.stringify(await reopened.exportSession(c.id))).not.toContain("X1234567 ");
    });

    it("erases under the session's own lease, and refuses while another process holds it", async () => {
      const c = await conversation(h.store);
      const other = await h.another();
      const lease = await other.acquireLease(c.id, "a run elsewhere");
      await expectCode(h.store.purgeEntries(c.id, [c.question.id], mark), "session_busy");
      expect(JSON.stringify(await other.getEntry(c.id, c.question.id))).toContain("X1234567");
      await lease.release();
      const mine = await h.store.acquireLease(c.id, "a delete");
      await h.store.purgeEntries(c.id, [c.question.id], mark);
      const next = await h.store.appendMessage(c.id, { role: "user", content: "still mine" });
      await mine.release();
      expectTombstone(await other.getEntry(c.id, c.question.id), c.question);
      expect((await other.getEntry(c.id, next.id))?.parentId).toBe(c.later.id);
    });

    it("changes nothing when an id is missing or names an entry that is not a message", async () => {
      const c = await conversation(h.store);
      const label = await h.store.appendLabelChange(c.id, c.question.id, "start");
      const before = await h.store.exportSession(c.id);
      await expectCode(h.store.purgeEntries(c.id, [c.question.id, "nosuchentry1"], mark), "entry_not_found");
      await expectCode(h.store.purgeEntries(c.id, [c.question.id, label.id], mark), "invalid_input");
      await expectCode(h.store.purgeEntries(c.id, ["../bad"], mark), "invalid_id");
      await expectCode(h.store.purgeEntries("no-such-session", [c.question.id], mark), "session_not_found");
      expect(await h.store.exportSession(c.id)).toEqual(before);
      expect(await (await h.reopen()).exportSession(c.id)).toEqual(before);
    });

    it("purgeEvents blanks the records in the window, keeping ids, types and times, on every instance", async () => {
      const { id } = await h.store.createSession();
      await h.store.appendEvents(id, [
        { type: "run.token", data: { content: "before" }, timestamp: "2026-01-01T00:00:00.000Z" },
        { type: "run.token", data: { content: SECRET }, timestamp: "2026-01-01T00:00:01.000Z" },
        { type: "run.done", data: { text: SECRET }, timestamp: "2026-01-01T00:00:02.000Z" },
        { type: "run.token", data: { content: "after" }, timestamp: "2026-01-01T00:00:03.000Z" },
      ]);
      const window = { from: "2026-01-01T00:00:01.000Z", to: "2026-01-01T00:00:03.000Z" };
      expect(await h.store.purgeEvents(id, window)).toBe(2);
      const check = async (store: Store) => {
        const events = await store.listEvents(id);
        expect(events.map((e) => [e.id, e.type, e.data])).toEqual([
          [1, "run.token", { content: "before" }],
          [2, "run.token", { purged: true }],
          [3, "run.done", { purged: true }],
          [4, "run.token", { content: "after" }],
        ]);
      };
      await check(h.store);
      await check(await h.another());
      await check(await h.reopen());
      // Ids go on from the last, never reused.
      const [next] = await h.reopen().then((s) => s.appendEvents(id, [{ type: "run.token", data: {} }]));
      expect(next?.id).toBe(5);
      expect(await h.store.purgeEvents(id, { from: "2027-01-01T00:00:00.000Z" })).toBe(0);
    });
  });
}
