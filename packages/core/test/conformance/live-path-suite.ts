import { beforeEach, describe, expect, it } from "vitest";
import type { Entry, EntryInput } from "../../src/model/entry.js";
import { buildContext, contextMessages } from "../../src/session/context.js";
import { CARRIED_FIELD, livePathOf } from "../../src/store/live-path.js";
import type { Store } from "../../src/store/store.js";
import { harnessPerTest, type MakeHarness } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

function user(text: string): EntryInput {
  return { type: "message", message: { role: "user", content: [{ type: "text", text }] } };
}

function assistant(text: string): EntryInput {
  return { type: "message", message: { role: "assistant", content: [{ type: "text", text }] } };
}

/** A goal tool's result: its metadata records the plan, which a continued run must still see. */
function planResult(callId: string): EntryInput {
  return {
    type: "message",
    message: {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: callId,
          toolName: "goal",
          output: { type: "text", value: "planned" },
          metadata: { goalTree: { marker: callId } },
        },
      ],
    },
  };
}

function ids(entries: readonly Entry[]): string[] {
  return entries.map((e) => e.id);
}

/** `Store.getLivePath`: the part of the active path a continued run reads, the same on every backend. */
export function livePathSuite(makeHarness: MakeHarness): void {
  describe("live path", () => {
    const h = harnessPerTest(makeHarness);
    let store: Store;
    beforeEach(() => {
      store = h.store;
    });

    /** task, settings, talk, a compaction keeping the last two messages, then more talk. */
    async function compacted(sid: string) {
      const [task, model, thinking, custom, a1, plan, , kept] = await store.appendEntries(sid, [
        user("the task"),
        { type: "model_change", model: "openai/gpt-4o" },
        { type: "thinking_level_change", thinkingLevel: "high" },
        { type: "custom", customType: "arbor.approval", data: { tool: "bash" } },
        assistant("first answer"),
        planResult("c1"),
        user("more work"),
        assistant("kept answer"),
        user("kept question"),
      ]);
      const compaction = await store.appendCompaction(sid, {
        summary: "what happened",
        firstKeptEntryId: kept!.id,
        tokensBefore: 100,
      });
      const after = await store.appendEntries(sid, [assistant("after"), user("next")]);
      return { task, model, thinking, custom, a1, plan, kept, compaction, after };
    }

    it("is the whole active path while nothing was compacted", async () => {
      const sid = (await store.createSession()).id;
      expect(await store.getLivePath(sid)).toEqual({ entries: [], complete: true });
      await store.appendEntries(sid, [user("a"), assistant("b"), user("c")]);
      const live = await store.getLivePath(sid);
      expect(live.complete).toBe(true);
      expect(live.entries).toEqual(await store.getActivePath(sid));
    });

    it("stops at the latest compaction, keeps what it keeps and carries what a run folds", async () => {
      const sid = (await store.createSession()).id;
      const c = await compacted(sid);
      expect((c.compaction as Record<string, unknown>)[CARRIED_FIELD]).toEqual(
        ids([c.task!, c.model!, c.thinking!, c.custom!, c.plan!]),
      );
      for (const reopen of [false, true]) {
        if (reopen) store = await h.reopen();
        const live = await store.getLivePath(sid);
        const full = await store.getActivePath(sid);
        expect(live.complete).toBe(false);
        expect(ids(live.entries)).toEqual([
          ...ids([c.task!, c.model!, c.thinking!, c.custom!, c.plan!]),
          ...ids(full.slice(full.findIndex((e) => e.id === c.kept!.id))),
        ]);
        expect(live).toEqual(livePathOf(full));
        // The model sees the same conversation, and the run the same settings, as from the whole path.
        const fromLive = buildContext(live.entries);
        const fromFull = buildContext(full);
        expect(contextMessages(fromLive)).toEqual(contextMessages(fromFull));
        expect(fromLive.thinkingLevel).toBe(fromFull.thinkingLevel);
      }
    });

    it("carries earlier entries through a second compaction", async () => {
      const sid = (await store.createSession()).id;
      const c = await compacted(sid);
      // A prune only edits messages the next compaction summarizes, and a call's start record is done
      // with once the call has its result: neither is carried.
      await store.appendEntry(sid, { type: "custom", customType: "arbor.prune", data: { toolCallIds: ["c1"] } });
      await store.appendEntry(sid, {
        type: "custom",
        customType: "arbor.tool_started",
        data: { callId: "c9", tool: "bash", idempotencyKey: "k" },
      });
      const later = await store.appendEntry(sid, { type: "model_change", model: "anthropic/claude-sonnet-4-5" });
      const second = await store.appendCompaction(sid, { summary: "again", firstKeptEntryId: null, tokensBefore: 50 });
      const last = await store.appendEntry(sid, user("go on"));
      const live = await store.getLivePath(sid);
      expect(ids(live.entries)).toEqual([...ids([c.task!, c.model!, c.thinking!, c.custom!, c.plan!, later, second, last])]);
      expect(live).toEqual(livePathOf(await store.getActivePath(sid)));
    });

    it("reads the whole path when the compaction does not carry its list, or is off the active path", async () => {
      const sid = (await store.createSession()).id;
      const [first] = await store.appendEntries(sid, [user("a"), assistant("b")]);
      // Written in a batch (as an import writes it): no carried list, so nothing can be left out.
      await store.appendEntries(sid, [{ type: "compaction", summary: "s", firstKeptEntryId: null, tokensBefore: 1 }, user("c")]);
      let live = await store.getLivePath(sid);
      expect(live).toEqual({ entries: await store.getActivePath(sid), complete: true });
      await store.appendCompaction(sid, { summary: "t", firstKeptEntryId: null, tokensBefore: 1 });
      expect((await store.getLivePath(sid)).complete).toBe(false);
      await store.switchLeaf(sid, first!.id);
      live = await store.getLivePath(sid);
      expect(live).toEqual({ entries: [first], complete: true });
    });

    it("refuses a missing session and a bad id, changing nothing", async () => {
      await expectCode(store.getLivePath("3f2a6c1e-0000-4000-8000-000000000000"), "session_not_found");
      await expectCode(store.getLivePath("../x"), "invalid_id");
    });
  });
}
