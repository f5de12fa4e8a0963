import type { Entry } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { ANSI } from "../src/render/style.js";
import { renderTree } from "../src/render/tree.js";
import { assistant, sampleTree, snapshotOf, user } from "./helpers/fixtures.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes
const ANSI_RE = /\u001b\[[0-9;]*m/g;

describe("renderTree", () => {
  it("draws branches with box-drawing characters, marks the active path and the leaf", () => {
    expect(renderTree(sampleTree().snapshot)).toEqual([
      "* u1aaaaaa user: hello",
      "* a1aaaaaa assistant: Hi! How can I help?",
      "├─   u2aaaaaa user: first try [draft]",
      "│    a2aaaaaa assistant: answer one",
      '│    l1aaaaaa label: u2aaaaaa = "draft"',
      "├─ * u3aaaaaa user: second try",
      "│  * a3aaaaaa assistant: Done. ← leaf",
      "└─   u4aaaaaa user: third try",
    ]);
  });

  it("indents nested branch points and keeps │ only where siblings follow", () => {
    const entries = [
      user("r", null, "root"),
      assistant("x", "r", "x"),
      user("x1", "x", "x1"),
      user("x2", "x", "x2"),
      assistant("y", "r", "y"),
    ];
    expect(renderTree(snapshotOf(entries, "x2"))).toEqual([
      "* r user: root",
      "├─ * x assistant: x",
      "│  ├─   x1 user: x1",
      "│  └─ * x2 user: x2 ← leaf",
      "└─   y assistant: y",
    ]);
  });

  it("draws several roots as branches of the session", () => {
    const entries = [user("r1", null, "one"), user("r2", null, "two"), assistant("r2a", "r2", "reply")];
    expect(renderTree(snapshotOf(entries, "r2a"))).toEqual([
      "├─   r1 user: one",
      "└─ * r2 user: two",
      "   * r2a assistant: reply ← leaf",
    ]);
  });

  it("says so when there are no entries, and draws no leaf when the leaf is reset", () => {
    expect(renderTree(snapshotOf([], null))).toEqual(["(no entries)"]);
    const lines = renderTree(snapshotOf([user("u", null, "hi")], null));
    expect(lines).toEqual(["  u user: hi"]);
  });

  it("is plain without a style and bold on the active path with ANSI", () => {
    const { snapshot } = sampleTree();
    const plain = renderTree(snapshot);
    expect(plain.join("\n")).not.toMatch(ANSI_RE);
    const styled = renderTree(snapshot, { style: ANSI });
    expect(styled.map((l) => l.replace(ANSI_RE, ""))).toEqual(plain);
    for (const line of styled) {
      const active = line.replace(ANSI_RE, "").includes("* ");
      expect(line.includes("\u001b[1m"), line).toBe(active);
    }
  });

  it("cuts previews to fit the width, never the id, kind, label or leaf mark", () => {
    const long = "word ".repeat(100);
    const entries = [user("u", null, long), assistant("a", "u", long)];
    const lines = renderTree(snapshotOf(entries, "a"), { width: 60 });
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/^\* u user: word word .*…$/);
    expect(lines[1]).toMatch(/… ← leaf$/);
    expect(renderTree(snapshotOf(entries, "a"), { maxPreview: 10 })[0]).toBe("* u user: word word…");
  });

  it("never passes terminal control sequences through", () => {
    const entries = [user("u", null, "evil \u001b]0;title\u0007 \u001b[2J text")];
    const [line] = renderTree(snapshotOf(entries, "u"));
    expect(line).not.toMatch(/\p{Cc}/u);
    expect(line).toContain("evil");
  });

  it("draws entries whose parent is missing instead of hiding them", () => {
    const entries: Entry[] = [user("u", null, "hi"), assistant("o", "gone", "orphan")];
    const snapshot = { ...snapshotOf([entries[0] as Entry], "u"), entries };
    snapshot.childrenByParentId = { "": ["u"], gone: ["o"] };
    expect(renderTree(snapshot)).toEqual(["├─ * u user: hi ← leaf", "└─   o assistant: orphan"]);
  });

  it("renders a 10,000-entry chain quickly, one line per entry, without recursion", () => {
    const entries: Entry[] = [];
    for (let i = 0; i < 10_000; i++) entries.push(user(`e${i}`, i === 0 ? null : `e${i - 1}`, `message ${i}`));
    const snapshot = snapshotOf(entries, "e9999");
    const started = performance.now();
    const lines = renderTree(snapshot);
    const ms = performance.now() - started;
    expect(lines).toHaveLength(10_000);
    expect(lines[9999]).toBe("* e9999 user: message 9999 ← leaf");
    expect(lines.every((l) => l.startsWith("* "))).toBe(true);
    expect(ms).toBeLessThan(2000);
  });

  it("bounds the indentation of a 10,000-entry tree that branches at every step", () => {
    // A comb: every spine entry has a dead-end child and the next spine entry.
    const entries: Entry[] = [user("s0", null, "spine 0")];
    for (let i = 1; i < 5_000; i++) {
      entries.push(assistant(`d${i}`, `s${i - 1}`, `dead end ${i}`));
      entries.push(user(`s${i}`, `s${i - 1}`, `spine ${i}`));
    }
    const lines = renderTree(snapshotOf(entries, "s4999"), { maxIndent: 10 });
    expect(lines).toHaveLength(entries.length);
    const widest = Math.max(...lines.map((l) => l.length));
    expect(widest).toBeLessThan(10 * 3 + 60);
    expect(lines.at(-1)).toMatch(/^… {2}.*\* s4999 user: spine 4999 ← leaf$/);
    expect(lines.filter((l) => l.includes("* s")).length).toBe(5_000);
  });
});
