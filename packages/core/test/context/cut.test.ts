import { describe, expect, it } from "vitest";
import { KEEP_RECENT_MAX, keepRecentBudget, selectCut } from "../../src/context/cut.js";
import { buildContext } from "../../src/session/context.js";
import { Chain, charCount } from "./entries.js";

describe("compaction cut (summary compaction)", () => {
  it("keeps whole recent items within the token budget", () => {
    const c = new Chain();
    c.user("a".repeat(100));
    c.assistant("b".repeat(100));
    const u2 = c.user("c".repeat(30));
    c.assistant("d".repeat(30));
    const state = buildContext(c.entries);
    const cut = selectCut(state, charCount, 70)!;
    expect(cut.firstKeptEntryId).toBe(u2.id);
    expect(cut.keepFrom).toBe(2);
    expect(cut.keptTokens).toBe(60);
    expect(cut.summarizedTokens).toBe(200);
    expect(cut.turnStart).toBe(cut.keepFrom);
  });

  it("never keeps a tool result without the call that asked for it", () => {
    const c = new Chain();
    c.user("go");
    const call = c.call(["t1", "t2"]);
    c.result("t1", "x".repeat(20));
    c.result("t2", "y".repeat(20));
    const state = buildContext(c.entries);
    // A budget fitting the two results but not the call: the cut goes before the call or keeps nothing.
    expect(selectCut(state, charCount, 45)?.firstKeptEntryId).toBeNull();
    expect(selectCut(state, charCount, 60)?.firstKeptEntryId).toBe(call.id);
  });

  it("marks a split turn: the turn's request and first steps get their own summary", () => {
    const c = new Chain();
    c.user("old question");
    c.assistant("old answer");
    c.user("new task");
    c.call(["a"]);
    c.result("a", "1".repeat(50));
    const kept = c.call(["b"]);
    c.result("b", "2".repeat(10));
    const state = buildContext(c.entries);
    const cut = selectCut(state, charCount, 25)!;
    expect(cut.firstKeptEntryId).toBe(kept.id);
    expect(cut.turnStart).toBe(2); // "new task" opens the split turn
    expect(cut.keepFrom).toBe(5);
  });

  it("updates a previous summary rather than keeping it, and returns undefined with nothing to summarize", () => {
    const c = new Chain();
    c.user("u");
    const a = c.assistant("a");
    c.compaction("S", a.id);
    const state = buildContext(c.entries);
    expect(state.items[0]?.compaction?.summary).toBe("S");
    // Everything since the summary fits the budget: nothing has to be summarized, unless the budget is 0.
    expect(selectCut(state, charCount, 1_000)).toBeUndefined();
    expect(selectCut(state, charCount, 0)?.firstKeptEntryId).toBeNull();
    expect(selectCut(buildContext([]), charCount, 0)).toBeUndefined();
  });

  it("keeps a quarter of the prompt room, at most 20,000 tokens", () => {
    expect(keepRecentBudget(27_904)).toBe(6_976);
    expect(keepRecentBudget(1_000_000)).toBe(KEEP_RECENT_MAX);
  });
});
