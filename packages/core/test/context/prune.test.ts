import { describe, expect, it } from "vitest";
import { PRUNE_MINIMUM, PRUNE_PROTECT, PRUNE_PROTECTED_TOOLS, selectPrune } from "../../src/context/prune.js";
import { applyEntry, buildContext, contextMessages } from "../../src/session/context.js";
import { PRUNED_OUTPUT } from "../../src/session/prune-entry.js";
import { Chain, charCount, outputs } from "./entries.js";

/** `turns` user turns, each with `steps` tool calls of `size` characters of output. */
function session(turns: number, steps: number, size: number, tool = "read"): Chain {
  const c = new Chain();
  let k = 0;
  for (let t = 0; t < turns; t++) {
    c.user(`turn ${t}`);
    for (let s = 0; s < steps; s++) {
      const id = `c${++k}`;
      c.call([id], tool);
      c.result(id, `${id}:`.padEnd(size, "x"), tool);
    }
    c.assistant(`done ${t}`);
  }
  return c;
}

describe("prune selection (the first stage of context management)", () => {
  it("uses the documented constants", () => {
    expect(PRUNE_MINIMUM).toBe(20_000);
    expect(PRUNE_PROTECT).toBe(40_000);
    expect(PRUNE_PROTECTED_TOOLS).toEqual(["skill"]);
  });

  it("keeps the last two user turns and the newest 40k tokens, and clears older outputs", () => {
    // 6 turns × 4 results × 5,000 = 120,000 tokens of output.
    const c = session(6, 4, 5_000);
    const state = buildContext(c.entries);
    const selection = selectPrune(state, charCount);
    // The last two turns (c17…c24) are skipped; of the rest the newest 40,000 (c9…c16) are protected.
    expect(selection?.toolCallIds).toEqual(["c8", "c7", "c6", "c5", "c4", "c3", "c2", "c1"]);
    expect(selection?.tokens).toBeGreaterThan(PRUNE_MINIMUM);
    // Exactly 20,000 to go is not more than PRUNE_MINIMUM: nothing is pruned.
    expect(selectPrune(buildContext(session(5, 4, 5_000).entries), charCount)).toBeUndefined();
  });

  it("does nothing when 20k tokens or fewer would go", () => {
    const c = session(4, 4, 3_000); // 48,000 outside the last two turns → 8,000 over the protected 40,000
    expect(selectPrune(buildContext(c.entries), charCount)).toBeUndefined();
  });

  it("never selects a protected tool, and stops at a summary and at an earlier prune", () => {
    const skills = session(6, 4, 5_000, "skill");
    expect(selectPrune(buildContext(skills.entries), charCount)).toBeUndefined();

    const c = session(6, 4, 5_000);
    const pruned = c.prune(["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]);
    const state = buildContext(c.entries);
    expect(state.leafId).toBe(pruned.id);
    expect(selectPrune(state, charCount)).toBeUndefined();

    const d = session(3, 4, 5_000);
    d.compaction("summary", d.entries.at(-1)!.id);
    for (let t = 0; t < 4; t++) {
      d.user(`after ${t}`);
      d.call([`d${t}`]);
      d.result(`d${t}`, "y".repeat(30_000));
    }
    // Only results after the summary are weighed: d0 and d1 (the two older turns) hold 60,000; 40,000 protected.
    expect(selectPrune(buildContext(d.entries), charCount)?.toolCallIds).toEqual(["d0"]);
  });

  it("is applied by the context builder on the path only: a sibling branch keeps its outputs, nothing is rewritten", () => {
    const c = session(6, 4, 5_000);
    const fork = c.entries.at(-1)!;
    const selection = selectPrune(buildContext(c.entries), charCount)!;
    const prune = c.prune(selection.toolCallIds, fork.id);
    const afterPrune = c.user("continue on A", prune.id);
    const sibling = c.user("continue on B", fork.id);

    const shared = c.entries.slice(0, c.entries.indexOf(fork) + 1);
    const forkState = buildContext(shared);
    const before = JSON.stringify(contextMessages(forkState));
    const a = applyEntry(applyEntry(forkState, prune), afterPrune);
    const b = applyEntry(forkState, sibling);

    const aOut = outputs(contextMessages(a));
    expect(aOut.filter((o) => o === PRUNED_OUTPUT)).toHaveLength(8);
    expect(contextMessages(a).filter((m) => m.role === "tool")).toHaveLength(24);
    expect(outputs(contextMessages(b)).includes(PRUNED_OUTPUT)).toBe(false);
    expect(JSON.stringify(contextMessages(forkState))).toBe(before);
    // The stored entries are untouched.
    expect(JSON.stringify(shared)).not.toContain(PRUNED_OUTPUT);
    // Built from scratch, each path agrees with the incremental states.
    expect(contextMessages(buildContext([...shared, prune, afterPrune]))).toEqual(contextMessages(a));
    expect(contextMessages(buildContext([...shared, sibling]))).toEqual(contextMessages(b));
    expect(a.rewrittenAt).toBeGreaterThan(0);
  });

  it("ignores a malformed prune entry", () => {
    const c = session(1, 1, 10);
    const bad = c.prune([]);
    const state = buildContext(c.entries);
    expect(state.leafId).toBe(bad.id);
    expect(outputs(contextMessages(state))).not.toContain(PRUNED_OUTPUT);
  });
});
