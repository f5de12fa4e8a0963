import { describe, expect, it } from "vitest";
import { renderSessionList } from "../src/render/list.js";
import { renderShow } from "../src/render/show.js";
import { meta, sampleTree, snapshotOf, user } from "./helpers/fixtures.js";

describe("renderSessionList", () => {
  const sessions = [
    meta({
      id: "bbbb",
      title: "Second\nline",
      createdAt: "2026-11-21T08:00:00.000Z",
      updatedAt: "2026-11-21T09:00:00.000Z",
      totalMessages: 12,
    }),
    meta({ id: "aaaa-long-id", task: "a task without a title", totalMessages: 3 }),
  ];

  it("prints one row per session with id, created, updated, messages and title", () => {
    expect(renderSessionList({ sessions })).toEqual([
      "ID            CREATED (UTC)        UPDATED (UTC)        MESSAGES  TITLE",
      "bbbb          2026-11-21 08:00:00  2026-11-21 09:00:00  12        Second line",
      "aaaa-long-id  2026-11-21 06:00:00  2026-11-21 07:30:00  3         a task without a title",
    ]);
  });

  it("prints the next cursor with the command that fetches the next page", () => {
    const lines = renderSessionList({ sessions, nextCursor: "CUR" }, { command: "arbor sessions list --limit 2" });
    expect(lines.at(-1)).toBe("next cursor: CUR  (arbor sessions list --limit 2 --cursor CUR)");
  });

  it("says so when the page is empty and cuts long titles", () => {
    expect(renderSessionList({ sessions: [] })).toEqual(["No sessions."]);
    const [, row] = renderSessionList({ sessions: [meta({ title: "x".repeat(200) })] }, { maxTitle: 10 });
    expect(row?.endsWith("xxxxxxxxx…")).toBe(true);
  });
});

describe("renderSessionList: statuses", () => {
  it("marks interrupted, failed and aborted sessions ahead of their title, and names an untitled one", () => {
    const rows = renderSessionList({
      sessions: [
        meta({ id: "i", status: "interrupted" }),
        meta({ id: "f", status: "failed", title: "Deploy" }),
        meta({ id: "a", status: "aborted", task: "look around" }),
        meta({ id: "c", status: "completed", title: "Done fine" }),
      ],
    }).slice(1);
    expect(rows.map((r) => r.slice(r.lastIndexOf("  ") + 2))).toEqual([
      "[interrupted] (untitled)",
      "[failed] Deploy",
      "[aborted] look around",
      "Done fine",
    ]);
  });
});

describe("renderShow: unknown prices", () => {
  it("says price unknown, never $0.0000, when an answer's model had no price", () => {
    const answer = (id: string, parent: string, cost?: number) => ({
      ...user(id, parent, "x"),
      message: {
        role: "assistant" as const,
        content: [{ type: "text" as const, text: "ok" }],
        tokens: { input: 100, output: 20, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
        ...(cost === undefined ? {} : { cost }),
      },
    });
    const unpriced = snapshotOf([user("u1", null, "hi"), answer("a1", "u1")], "a1", { totalTokens: 120, totalCost: 0 });
    expect(renderShow(unpriced)).toContain("usage     120 tokens, price unknown");
    const mixed = snapshotOf([user("u1", null, "hi"), answer("a1", "u1", 0.5), answer("a2", "a1")], "a2", {
      totalTokens: 240,
      totalCost: 0.5,
    });
    expect(renderShow(mixed)).toContain("usage     240 tokens, $0.5000 + price unknown");
    const priced = snapshotOf([user("u1", null, "hi"), answer("a1", "u1", 0.25)], "a1", { totalTokens: 120, totalCost: 0.25 });
    expect(renderShow(priced)).toContain("usage     120 tokens, $0.2500");
  });
});

describe("renderSessionList: damaged sessions", () => {
  it("says that a session will not open, and why, ahead of its title", () => {
    const [, row] = renderSessionList({
      sessions: [meta({ id: "torn", title: "Old", damaged: "session.json is not valid JSON" })],
    });
    expect(row).toContain("[damaged: session.json is not valid JSON] Old");
  });
});

describe("renderShow", () => {
  it("prints the meta and the active path, one line per entry, with labels", () => {
    const { snapshot } = sampleTree();
    snapshot.session.title = "Demo";
    snapshot.labelsByEntryId.u3aaaaaaaaaa = "keep";
    expect(renderShow(snapshot)).toEqual([
      "session   s1",
      "title     Demo",
      "agent     main (agent)",
      "created   2026-11-21 06:00:00",
      "updated   2026-11-21 07:30:00",
      "entries   8 (4 on the active path, 1 branch point)",
      "messages  7",
      "leaf      a3aaaaaaaaaa",
      "",
      "Active path (4 entries, root first):",
      "  u1aaaaaa  user       hello",
      "  a1aaaaaa  assistant  Hi! How can I help?",
      "  u3aaaaaa  user       second try [keep]",
      "  a3aaaaaa  assistant  Done.",
    ]);
  });

  it("says when the active path is empty", () => {
    const lines = renderShow(snapshotOf([user("u", null, "hi")], null));
    expect(lines).toContain("leaf      (none)");
    expect(lines.at(-1)).toBe("The active path is empty.");
  });
});

describe("renderShow of a long path", () => {
  it("prints a 200,000-entry path without overflowing the call stack", () => {
    const entries = Array.from({ length: 200_000 }, (_, i) => user(`u${i}`, i === 0 ? null : `u${i - 1}`, `message ${i}`));
    const lines = renderShow(snapshotOf(entries, "u199999"));
    expect(lines).toContain("Active path (200000 entries, root first):");
    expect(lines.at(-1)).toContain("message 199999");
  });
});
