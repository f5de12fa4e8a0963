import { describe, expect, it } from "vitest";
import { harnessPerTest, type MakeHarness } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

/** Hostile or damaged data: parent loops and entries naming entries that are not there. */
export function parentsSuite(makeHarness: MakeHarness): void {
  describe("parent sessions", () => {
    // Inside the describe: its hooks then make a harness for this suite's tests only, not for every
    // test of the whole conformance run.
    const h = harnessPerTest(makeHarness);

    it("refuses a session that is its own parent or ancestor, on create and on import, and writes nothing", async () => {
      await expectCode(h.store.createSession({ id: "self-loop", parentSessionId: "self-loop" }), "invalid_input");
      expect(await h.store.getSession("self-loop")).toBeUndefined();
      await h.store.createSession({ id: "partner-a", parentSessionId: "partner-b" });
      await expectCode(h.store.createSession({ id: "partner-b", parentSessionId: "partner-a" }), "invalid_input");
      expect(await h.store.getSession("partner-b")).toBeUndefined();

      const original = await h.store.createSession({ id: "exported", title: "t" });
      await h.store.appendMessage(original.id, { role: "user", content: "hi" });
      const exported = await h.store.exportSession(original.id);
      await h.store.deleteSession(original.id);
      const self = { ...exported, session: { ...exported.session, parentSessionId: "exported" } };
      await expectCode(h.store.importSession(self), "invalid_input");
      const child = await h.store.createSession({ id: "exported@delegate-1", parentSessionId: "exported" });
      const grandchild = await h.store.createSession({ parentSessionId: child.id });
      const partner = { ...exported, session: { ...exported.session, parentSessionId: grandchild.id } };
      await expectCode(h.store.importSession(partner), "invalid_input");
      expect(await h.store.getSession("exported")).toBeUndefined();
      // With a new id the copy is a different session, so the same parent is fine.
      const copy = await h.store.importSession(partner, { newId: true });
      expect(copy.parentSessionId).toBe(grandchild.id);
      expect((await h.store.listSessions({ limit: 100 })).sessions.map((m) => m.id).sort()).toEqual(
        [child.id, copy.id, grandchild.id, "partner-a"].sort(),
      );
    });

    it("refuses an import whose label names an entry that is not before it, and writes nothing", async () => {
      const { id } = await h.store.createSession({ id: "labelled" });
      await h.store.appendMessage(id, { role: "user", content: "hi" });
      const exported = await h.store.exportSession(id);
      await h.store.deleteSession(id);
      const last = exported.entries.at(-1)!;
      const label = {
        type: "label",
        id: "bad-label",
        parentId: last.id,
        timestamp: last.timestamp,
        targetId: "missing-entry",
        label: "x",
      };
      await expectCode(h.store.importSession({ ...exported, entries: [...exported.entries, label] } as never), "entry_not_found");
      expect(await h.store.getSession(id)).toBeUndefined();
    });
  });
}
