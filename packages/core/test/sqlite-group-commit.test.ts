import { describe, expect, it } from "vitest";
import { expectCode } from "./conformance/sessions-suite.js";
import { sqlHarness } from "./helpers/sql-databases.js";

describe("SQLite group commit (durability fsync)", () => {
  it("commits concurrent appends together; a failing one rolls back alone", async () => {
    const h = await sqlHarness("sqlite", "fsync")();
    try {
      const sessions = await Promise.all(Array.from({ length: 4 }, () => h.store.createSession()));
      const good = sessions.flatMap((s) =>
        Array.from({ length: 5 }, (_, i) => h.store.appendMessage(s.id, { role: "user", content: `${s.id}:${i}` })),
      );
      const bad = h.store.appendMessage(sessions[0]!.id, { role: "user", content: "x" }, { parentId: "missing" });
      const results = await Promise.allSettled([...good, bad]);
      expect(results.slice(0, -1).every((r) => r.status === "fulfilled")).toBe(true);
      await expectCode(bad, "parent_not_found");
      const store = await h.reopen();
      for (const s of sessions) {
        const path = await store.getActivePath(s.id);
        expect(path.map((e) => (e.type === "message" ? (e.message.content[0] as { text: string }).text : ""))).toEqual(
          Array.from({ length: 5 }, (_, i) => `${s.id}:${i}`),
        );
      }
    } finally {
      await h.cleanup();
    }
  });
});
