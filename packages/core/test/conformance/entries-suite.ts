import { describe, expect, it } from "vitest";
import type { Entry, EntryInput } from "../../src/model/entry.js";
import type { Store } from "../../src/store/store.js";
import { harnessPerTest, type MakeHarness } from "./harness.js";
import { expectCode } from "./sessions-suite.js";

/** One input of every entry type, each valid on a session whose first entry is `first`. */
function everyType(first: string): EntryInput[] {
  return [
    { type: "message", message: { role: "system", content: [{ type: "text", text: "be brief" }] } },
    {
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "reasoning", text: "thinking" },
          { type: "text", text: "calling" },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.txt" } },
        ],
        tokens: { input: 10, output: 5, reasoning: 1, cacheRead: 0, cacheWrite: 0 },
        cost: 0.25,
        model: "openai/gpt-4o",
        finishReason: "tool-calls",
        goalId: "1",
        durationMs: 12,
        description: "tool call: read",
      },
    },
    {
      type: "message",
      message: {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "hi" } }],
      },
    },
    { type: "thinking_level_change", thinkingLevel: "high" },
    { type: "model_change", model: "anthropic/claude-sonnet-4-5" },
    { type: "compaction", summary: "we read a.txt", firstKeptEntryId: first, tokensBefore: 1234, details: { files: ["a.txt"] } },
    { type: "branch_summary", fromId: first, summary: "tried another way" },
    { type: "custom", customType: "ext.state", data: { n: 1 } },
    { type: "custom_message", customType: "ext.note", content: "remember this", display: true, includeInContext: true },
    { type: "label", targetId: first, label: "start" },
    { type: "session_info", title: "Renamed" },
    { type: "subagent_batch", batchId: "b1", mode: "explore", goalId: "2", tasks: [{ task: "look", subSessionId: "sub-1" }] },
    {
      type: "subagent_result",
      batchId: "b1",
      subSessionId: "sub-1",
      status: "completed",
      summary: "found it",
      metadata: {
        processEvents: [{ kind: "tool", name: "read" }],
        evidenceSummaries: [],
        toolRuntimeRoutes: [],
        subagentProjection: {
          summary: "found it",
          diagnostics: { selectedSource: "subagent_result", inputSources: ["subagent_result"], fallbackUsed: false },
        },
      },
    },
  ];
}

async function chain(store: Store, sessionId: string, n: number): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let i = 0; i < n; i++)
    out.push(await store.appendMessage(sessionId, { role: i % 2 ? "assistant" : "user", content: `m${i}` }));
  return out;
}

export function entriesSuite(makeHarness: MakeHarness): void {
  describe("entries", () => {
    // Inside the describe: its hooks then make a harness for this suite's tests only, not for every
    // test of the whole conformance run.
    const h = harnessPerTest(makeHarness);

    it("appends and reads back every entry type, also after reopening", async () => {
      const { id } = await h.store.createSession();
      const first = await h.store.appendMessage(id, { role: "user", content: "hello" });
      expect(first).toMatchObject({
        type: "message",
        parentId: null,
        message: { role: "user", content: [{ type: "text", text: "hello" }] },
      });
      const appended = [first];
      for (const input of everyType(first.id)) {
        const e = await h.store.appendEntry(id, input);
        expect(e).toMatchObject(input as object);
        expect(e.parentId).toBe(appended[appended.length - 1]?.id);
        appended.push(e);
      }
      expect(await h.store.listEntries(id)).toEqual(appended);
      expect(await h.store.getEntry(id, first.id)).toEqual(first);
      expect(await h.store.getEntry(id, "absent")).toBeUndefined();
      const meta = await h.store.getSession(id);
      expect(meta).toMatchObject({
        rootEntryId: first.id,
        leafEntryId: appended.at(-1)?.id,
        totalMessages: 4,
        totalTokens: 15,
        totalCost: 0.25,
        title: "Renamed",
      });
      const reopened = await h.reopen();
      expect(await reopened.listEntries(id)).toEqual(appended);
      expect(await reopened.getSession(id)).toEqual(meta);
    });

    it("reads an older session's bare run_error entry as arbor.run_error", async () => {
      const { id } = await h.store.createSession();
      const data = { code: "provider_error", message: "boom" };
      const written = await h.store.appendEntry(id, { type: "custom", customType: "run_error", data });
      const reopened = await h.reopen();
      const renamed = { ...written, customType: "arbor.run_error" };
      expect(await reopened.getActivePath(id)).toEqual([renamed]);
      expect(await reopened.listEntries(id)).toEqual([renamed]);
      expect(await reopened.getEntry(id, written.id)).toEqual(renamed);
    });

    it("uses the typed appenders", async () => {
      const { id } = await h.store.createSession();
      const m = await h.store.appendMessage(id, { role: "user", content: [{ type: "text", text: "x" }] });
      const t = await h.store.appendThinkingLevelChange(id, "low");
      const mc = await h.store.appendModelChange(id, "openai/gpt-4o-mini");
      const c = await h.store.appendCompaction(id, { summary: "s", firstKeptEntryId: m.id, tokensBefore: 9 });
      const b = await h.store.appendBranchSummary(id, { fromId: m.id, summary: "b" });
      const l = await h.store.appendLabelChange(id, m.id, "here");
      const i = await h.store.appendSessionInfo(id, { title: "T" });
      expect([t.type, mc.type, c.type, b.type, l.type, i.type]).toEqual([
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "label",
        "session_info",
      ]);
      const snap = await h.store.getSnapshot(id);
      expect(snap.runtimeContext.thinkingLevel).toBe("low");
      expect(snap.runtimeContext.model).toBe("openai/gpt-4o-mini");
      expect(snap.session.title).toBe("T");
    });

    it("branches by parentId, moves the leaf, and persists switchLeaf and resetLeaf", async () => {
      const { id } = await h.store.createSession();
      const [a, b, c] = await chain(h.store, id, 3);
      const d = await h.store.appendMessage(id, { role: "assistant", content: "other" }, { parentId: a?.id });
      expect(d.parentId).toBe(a?.id);
      expect((await h.store.getActivePath(id)).map((e) => e.id)).toEqual([a?.id, d.id]);
      await h.store.switchLeaf(id, c?.id as string);
      let store = await h.reopen();
      expect((await store.getSession(id))?.leafEntryId).toBe(c?.id);
      expect((await store.getActivePath(id)).map((e) => e.id)).toEqual([a?.id, b?.id, c?.id]);
      const e = await store.appendMessage(id, { role: "user", content: "after switch" });
      expect(e.parentId).toBe(c?.id);
      await store.resetLeaf(id);
      store = await h.reopen();
      expect((await store.getSession(id))?.leafEntryId).toBeNull();
      expect(await store.getActivePath(id)).toEqual([]);
      const root2 = await store.appendMessage(id, { role: "user", content: "new root" });
      expect(root2.parentId).toBeNull();
      const snap = await store.getSnapshot(id);
      expect(snap.childrenByParentId[""]).toEqual([a?.id, root2.id]);
      expect(snap.childrenByParentId[a?.id as string]).toEqual([b?.id, d.id]);
      expect(snap.session.rootEntryId).toBe(a?.id);
      await expectCode(store.switchLeaf(id, "missing"), "entry_not_found");
      expect((await store.getSession(id))?.leafEntryId).toBe(root2.id);
    });

    it("sets and clears labels", async () => {
      const { id } = await h.store.createSession();
      const [a, b] = await chain(h.store, id, 2);
      await h.store.appendLabelChange(id, a?.id as string, "first");
      await h.store.appendLabelChange(id, b?.id as string, "second");
      await h.store.appendLabelChange(id, a?.id as string, undefined);
      const store = await h.reopen();
      expect((await store.getSnapshot(id)).labelsByEntryId).toEqual({ [b?.id as string]: "second" });
      await expectCode(store.appendLabelChange(id, "missing", "x"), "entry_not_found");
    });

    it("builds a snapshot with every field", async () => {
      const { id } = await h.store.createSession();
      const [a, b, c] = await chain(h.store, id, 3);
      const comp = await h.store.appendCompaction(id, {
        summary: "earlier talk",
        firstKeptEntryId: c?.id as string,
        tokensBefore: 100,
      });
      const d = await h.store.appendMessage(id, { role: "user", content: "go on" });
      await h.store.appendMessage(id, { role: "user", content: "side" }, { parentId: b?.id });
      await h.store.switchLeaf(id, d.id);
      const snap = await h.store.getSnapshot(id);
      expect(snap.session).toEqual(await h.store.getSession(id));
      expect(snap.entries).toEqual(await h.store.listEntries(id));
      expect(snap.activePath).toEqual([a?.id, b?.id, c?.id, comp.id, d.id]);
      expect(snap.runtimeContext.messageEntryIds).toEqual([comp.id, c?.id, d.id]);
      expect(snap.runtimeContext.messages[0]).toMatchObject({ role: "user", synthetic: true });
      expect(JSON.stringify(snap.runtimeContext.messages[0])).toContain("earlier talk");
      expect(Object.keys(snap.childrenByParentId).sort()).toEqual(["", a?.id, b?.id, c?.id, comp.id].sort());
    });

    it("creates a branched session holding the path and its labels", async () => {
      const { id } = await h.store.createSession({ cwd: "/w", title: "src" });
      const [a, b, c] = await chain(h.store, id, 3);
      await h.store.appendLabelChange(id, a?.id as string, "keep");
      await h.store.appendLabelChange(id, c?.id as string, "not on path");
      await h.store.switchLeaf(id, c?.id as string);
      const before = await h.store.exportSession(id);
      const fork = await h.store.createBranchedSession(id, b?.id as string);
      expect(fork.id).not.toBe(id);
      expect(fork.branchedFrom).toEqual({ sessionId: id, entryId: b?.id });
      const entries = await h.store.listEntries(fork.id);
      const messages = entries.filter((e) => e.type === "message");
      expect(messages).toEqual([a, b]);
      const snap = await h.store.getSnapshot(fork.id);
      expect(snap.labelsByEntryId).toEqual({ [a?.id as string]: "keep" });
      expect(snap.runtimeContext.messageEntryIds).toEqual([a?.id, b?.id]);
      expect(await h.store.exportSession(id)).toEqual(before);
      await expectCode(h.store.createBranchedSession(id, "missing"), "entry_not_found");
    });

    it("updates an entry's fields but never its place in the tree", async () => {
      const { id } = await h.store.createSession();
      const [a] = await chain(h.store, id, 1);
      const msg = {
        role: "user",
        content: [{ type: "text", text: "edited" }],
        tokens: { input: 7, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
      };
      const updated = await h.store.updateEntry(id, a?.id as string, { message: msg });
      expect(updated).toMatchObject({ id: a?.id, parentId: null, message: msg });
      await expectCode(h.store.updateEntry(id, a?.id as string, { parentId: "x" }), "invalid_input");
      await expectCode(h.store.updateEntry(id, a?.id as string, { message: { role: "bogus" } }), "invalid_input");
      await expectCode(h.store.updateEntry(id, "missing", {}), "entry_not_found");
      const store = await h.reopen();
      expect(await store.getEntry(id, a?.id as string)).toEqual(updated);
      expect((await store.getSession(id))?.totalTokens).toBe(7);
    });

    it("refuses bad appends with typed errors and changes nothing", async () => {
      const { id } = await h.store.createSession();
      const [a] = await chain(h.store, id, 2);
      const before = await h.store.exportSession(id);
      const s = h.store;
      await expectCode(s.appendMessage(id, { role: "user", content: "x" }, { parentId: "nope" }), "parent_not_found");
      await expectCode(s.appendMessage(id, { role: "user", content: "x" }, { id: a?.id }), "duplicate_entry");
      await expectCode(s.appendEntry(id, { type: "from_the_future", x: 1 } as never), "unknown_entry_type");
      await expectCode(s.appendEntry(id, { type: "message", message: { role: "bogus", content: [] } } as never), "invalid_input");
      await expectCode(s.appendEntry(id, null as never), "invalid_input");
      await expectCode(s.appendMessage(id, { role: "user", content: "x".repeat(9 * 1024 * 1024) }), "entry_too_large");
      await expectCode(s.appendCompaction(id, { summary: "s", firstKeptEntryId: "nope", tokensBefore: 1 }), "entry_not_found");
      await expectCode(
        s.appendEntries(id, [
          { type: "custom", customType: "ok" },
          { type: "custom", customType: "bad", parentId: "nope" },
        ]),
        "parent_not_found",
      );
      expect(await s.exportSession(id)).toEqual(before);
      expect(await (await h.reopen()).exportSession(id)).toEqual(before);
    });

    it("stores a prevalidated message as given and still checks its place in the tree", async () => {
      const { id } = await h.store.createSession();
      const [a] = await chain(h.store, id, 1);
      const message = everyType("unused")[1] as Extract<EntryInput, { type: "message" }>;
      const e = await h.store.appendMessage(id, message.message, { prevalidated: true });
      expect(e).toMatchObject({ type: "message", parentId: a?.id, message: message.message });
      expect(e).not.toHaveProperty("prevalidated");
      await expectCode(h.store.appendMessage(id, message.message, { prevalidated: true, parentId: "nope" }), "parent_not_found");
      await expectCode(h.store.appendMessage(id, message.message, { prevalidated: true, id: a?.id }), "duplicate_entry");
      // Without the flag the same path checks the message itself.
      await expectCode(h.store.appendMessage(id, { role: "bogus", content: [] } as never), "invalid_input");
      expect(await (await h.reopen()).listEntries(id)).toEqual([a, e]);
      expect((await h.store.getSession(id))?.totalTokens).toBe(15);
    });

    it("appends a batch as a chain, all or nothing", async () => {
      const { id } = await h.store.createSession();
      const batch = await h.store.appendEntries(
        id,
        [
          { type: "custom", customType: "a" },
          { type: "custom", customType: "b" },
          { type: "label", targetId: "fixed-id-1", label: "l" },
        ].map((e, i) => (i === 0 ? { ...e, id: "fixed-id-1" } : e)) as EntryInput[],
      );
      expect(batch.map((e) => e.parentId)).toEqual([null, "fixed-id-1", batch[1]?.id]);
      expect(await (await h.reopen()).listEntries(id)).toEqual(batch);
    });

    it("serializes 100 concurrent appends to one session into a valid chain", async () => {
      const { id } = await h.store.createSession();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => h.store.appendMessage(id, { role: "user", content: `c${i}` })),
      );
      const entries = await (await h.reopen()).listEntries(id);
      expect(entries).toHaveLength(100);
      expect(new Set(entries.map((e) => e.id)).size).toBe(100);
      expect(entries.map((e) => e.parentId)).toEqual([null, ...entries.slice(0, -1).map((e) => e.id)]);
      expect(new Set(results.map((e) => e.id))).toEqual(new Set(entries.map((e) => e.id)));
      expect((await h.store.getSession(id))?.leafEntryId).toBe(entries[99]?.id);
    });

    it("appends to 50 sessions in parallel", async () => {
      const metas = await Promise.all(Array.from({ length: 50 }, () => h.store.createSession()));
      await Promise.all(metas.map((m) => chain(h.store, m.id, 10)));
      const store = await h.reopen();
      for (const m of metas) {
        const path = await store.getActivePath(m.id);
        expect(path.map((e) => (e.type === "message" ? e.message.content[0] : null))).toEqual(
          Array.from({ length: 10 }, (_, i) => ({ type: "text", text: `m${i}` })),
        );
      }
    });

    it("exports and imports a session with equal content", async () => {
      const { id } = await h.store.createSession({ title: "t" });
      const [a] = await chain(h.store, id, 4);
      await h.store.appendLabelChange(id, a?.id as string, "x");
      await h.store.switchLeaf(id, a?.id as string);
      const exported = await h.store.exportSession(id);
      await expectCode(h.store.importSession(exported), "session_exists");
      const copy = await h.store.importSession(exported, { newId: true });
      expect(copy.id).not.toBe(id);
      expect(await h.store.listEntries(copy.id)).toEqual(exported.entries);
      await h.store.deleteSession(id);
      const again = await h.store.importSession(exported);
      expect(again).toEqual(exported.session);
      expect(await (await h.reopen()).exportSession(id)).toEqual(exported);
      await expectCode(
        h.store.importSession({ ...exported, entries: [...exported.entries, exported.entries[0]] } as never, { newId: true }),
        "duplicate_entry",
      );
      await expectCode(h.store.importSession({ format: "nope" } as never), "invalid_input");
    });
  });
}
