import { text as answer, scriptedModel, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { openSqlStore } from "../src/store/sql/open-sql-store.js";
import type { Store } from "../src/store/store.js";
import { expectCode } from "./conformance/sessions-suite.js";
import { gateTool } from "./helpers/gate-tool.js";
import { createNamespace, SQL_KINDS, type SqlNamespace } from "./helpers/sql-databases.js";
import { harness } from "./loop/harness.js";

/**
 * A holder's writes are fenced by its lease's token, read in the write's own transaction. The case:
 * a holder cut off from its database (or stalled) whose lease ran out in the store's view while its
 * own clock still counted it alive; another process took the session over. Its next write must be
 * refused, or two drivers write one session (a tool's effect run by both).
 */
const text = (t: string) => ({ role: "user" as const, content: t });

async function twoStores(ns: SqlNamespace): Promise<[Store, Store]> {
  const a = await openSqlStore(ns.spec);
  try {
    return [a, await openSqlStore(ns.spec)];
  } catch (err) {
    await a.close();
    throw err;
  }
}

describe.each(SQL_KINDS)("the lease fence (%s)", (kind) => {
  it("refuses the writes of a holder whose lease was taken over, though its heartbeat has not noticed", async () => {
    const ns = await createNamespace(kind);
    const [holder, taker] = await twoStores(ns);
    try {
      const { id } = await holder.createSession();
      const lease = await holder.acquireLease(id, "the first driver");
      const first = await holder.appendMessage(id, text("before the cut"));
      // The store's view: the lease ran out (its renewals stopped reaching the database).
      await ns.query("update arbor_leases set expires_at = 0");
      const taken = await taker.acquireLease(id, "the taker");
      const taker1 = await taker.appendMessage(id, text("the taker's"));
      expect(lease.lost.aborted).toBe(false);

      const err = await expectCode(holder.appendMessage(id, text("the stale holder's")), "session_busy");
      expect(err.message).toContain("the taker");
      expect(lease.lost.aborted).toBe(true);
      await expectCode(holder.appendEntries(id, [{ type: "custom", customType: "x" }]), "session_busy");
      await expectCode(holder.updateSession(id, { title: "stale" }), "session_busy");
      await expectCode(holder.updateEntry(id, first.id, { content: "stale" }), "session_busy");
      await expectCode(holder.switchLeaf(id, first.id), "session_busy");

      // Given back by the taker, the session is still not the stale holder's: its lease is gone.
      await taken.release();
      await expectCode(holder.appendMessage(id, text("after the release")), "session_busy");
      expect((await taker.listEntries(id)).map((e) => e.id)).toEqual([first.id, taker1.id]);
      await lease.release();
      // A new lease of the first store writes again.
      const again = await holder.acquireLease(id, "the first driver, again");
      await holder.appendMessage(id, text("with a new lease"));
      await again.release();
      expect(await taker.listEntries(id)).toHaveLength(3);
    } finally {
      await holder.close();
      await taker.close();
      await ns.drop();
    }
  });

  it("a run whose session was taken over stops at its next write and says its lease was lost, not that it was aborted", async () => {
    const ns = await createNamespace(kind);
    const [store, taker] = await twoStores(ns);
    try {
      const g = gateTool();
      const model = scriptedModel([[toolCall("gate", {})], [answer("never")]]);
      const { runtime } = await harness({ model, tools: [g.tool], store });
      const { id } = await store.createSession();
      const run = runtime.runs.run({ sessionId: id, prompt: "wait" });
      await g.reached;
      await ns.query("update arbor_leases set expires_at = 0");
      const taken = await taker.acquireLease(id, "the taker");
      g.release();
      const result = await run.result;
      // A queue that started the run for a request gives the request back on this code.
      expect(result.status).toBe("aborted");
      expect(result.error?.code).toBe("session_busy");
      expect((await taker.listEntries(id)).some((e) => e.type === "message" && e.message.role === "tool")).toBe(false);
      await taken.release();
    } finally {
      await store.close().catch(() => {});
      await taker.close();
      await ns.drop();
    }
  });
});
