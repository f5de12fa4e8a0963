import { describe, expect, it } from "vitest";
import { expectCode } from "./conformance/sessions-suite.js";
import { sqlHarness } from "./helpers/sql-databases.js";

// Sibling sub-traces keep SQLite's one connection busy, so their session updates wait for it (the
// path beside the synchronous one): they must apply in order and behind the same lease fence.
describe("SQLite updateSession while the connection is busy", () => {
  it("applies each update after the writes queued before it, and refuses a session another store drives", async () => {
    const h = await sqlHarness("sqlite")();
    try {
      const other = await h.another();
      const [a, spare, driven] = await Promise.all([h.store.createSession(), h.store.createSession(), h.store.createSession()]);
      const lease = await other.acquireLease(driven.id, "a run elsewhere");
      // A delete is a transaction that holds the connection across awaits: everything below waits for it.
      const busy = h.store.deleteSession(spare.id);
      const titles = Array.from({ length: 5 }, (_, i) => h.store.updateSession(a.id, { title: `title ${i}` }));
      const appended = h.store.appendMessage(a.id, { role: "user", content: "after the titles" });
      const last = h.store.updateSession(a.id, { status: "completed" });
      const refused = h.store.updateSession(driven.id, { title: "intruder" });
      await busy;
      const metas = await Promise.all(titles);
      expect(metas.map((m) => m.title)).toEqual(Array.from({ length: 5 }, (_, i) => `title ${i}`));
      const entry = await appended;
      expect(await last).toMatchObject({ title: "title 4", status: "completed", leafEntryId: entry.id });
      await expectCode(refused, "session_busy");
      await lease.release();
      const reopened = await h.reopen();
      expect(await reopened.getSession(a.id)).toMatchObject({ title: "title 4", status: "completed", leafEntryId: entry.id });
      expect((await reopened.getSession(driven.id))?.title).toBeUndefined();
    } finally {
      await h.cleanup();
    }
  });
});
