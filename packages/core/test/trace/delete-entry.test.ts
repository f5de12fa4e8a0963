import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/model/entry.js";
import { applyEntry, buildContext, contextMessages } from "../../src/session/context.js";
import { DELETE_ENTRY_TYPE, deletedEntryIds } from "../../src/session/delete-entry.js";
import { Chain } from "../context/entries.js";

function deleteEntry(id: string, parentId: string, entryIds: string[]): Entry {
  return {
    type: "custom",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:00.000Z",
    customType: DELETE_ENTRY_TYPE,
    data: { entryIds },
  };
}

const texts = (path: readonly Entry[]) =>
  contextMessages(buildContext(path)).map((m) =>
    m.content.map((p) => (p.type === "text" ? p.text : p.type === "tool-call" ? `call ${p.toolCallId}` : p.type)).join(" "),
  );

describe("delete entries in the context builder", () => {
  it("leave the listed messages out from their point of the path on", () => {
    const chain = new Chain();
    chain.user("q1");
    const call = chain.call(["c1"]);
    const result = chain.result("c1", "out");
    const a1 = chain.assistant("a1");
    const u2 = chain.user("q2");
    const before = chain.entries.slice();
    const del = deleteEntry("d1", u2.id, [call.id, result.id, a1.id]);
    expect(texts(before)).toEqual(["q1", "call c1", "tool-result", "a1", "q2"]);
    expect(texts([...before, del])).toEqual(["q1", "q2"]);
    expect(deletedEntryIds([...before, del])).toEqual(new Set([call.id, result.id, a1.id]));
    // Entries after the delete are kept; the state's leaf is the delete entry's successor.
    const a2 = chain.assistant("a2", del.id);
    const state = buildContext([...before, del, a2]);
    expect(texts([...before, del, a2])).toEqual(["q1", "q2", "a2"]);
    expect(state.leafId).toBe(a2.id);
    expect(state.rewrittenAt).toBe(2);
  });

  it("never changes an older state a sibling branch shares", () => {
    const chain = new Chain();
    chain.user("q1");
    const a1 = chain.assistant("a1");
    const shared = buildContext(chain.entries);
    const deleted = applyEntry(shared, deleteEntry("d1", a1.id, [a1.id]));
    const sibling = applyEntry(shared, chain.assistant("b1", a1.id));
    expect(contextMessages(deleted)).toHaveLength(1);
    expect(contextMessages(shared)).toHaveLength(2);
    expect(contextMessages(sibling)).toHaveLength(3);
  });

  it("ignores malformed data and ids not in context", () => {
    const chain = new Chain();
    const u1 = chain.user("q1");
    const bad: Entry = { ...deleteEntry("d1", u1.id, ["x"]), data: { entryIds: [] } } as Entry;
    expect(texts([u1, bad])).toEqual(["q1"]);
    const missing = buildContext([u1, deleteEntry("d2", u1.id, ["nosuch"])]);
    expect(missing.rewrittenAt).toBe(0);
    expect(deletedEntryIds([u1, bad])).toEqual(new Set());
  });
});
