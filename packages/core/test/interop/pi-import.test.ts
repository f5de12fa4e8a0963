import { describe, expect, it } from "vitest";
import { ArborError } from "../../src/errors.js";
import { toPiSession } from "../../src/interop/pi/export.js";
import { convertPiSession } from "../../src/interop/pi/import.js";
import { SessionExportSchema } from "../../src/store/export-format.js";
import { branchPoints, countParts, countRole, countType, fixture, rawBlocks, rawLines } from "./fixtures.js";

const role = (lines: Array<Record<string, unknown>>, r: string) =>
  lines.filter((l) => l.type === "message" && (l.message as { role?: string }).role === r);

describe("pi import", () => {
  it("a v1 file becomes a linear chain keeping every message, tool call and change", () => {
    const file = "pi/v1-linear-large-session.jsonl";
    const raw = rawLines(file);
    const { sessions, skipped } = convertPiSession(fixture(file));
    expect(sessions).toHaveLength(1);
    const [s] = sessions;
    if (!s) throw new Error("no session");
    expect(SessionExportSchema.safeParse(s).success).toBe(true);
    expect(skipped).toEqual({});
    // One entry per line after the header, each hanging on the one before.
    expect(s.entries).toHaveLength(raw.length - 1);
    expect(s.entries.every((e, i) => e.parentId === (i === 0 ? null : s.entries[i - 1]?.id))).toBe(true);
    expect(countRole(s, "user")).toBe(role(raw, "user").length);
    expect(countRole(s, "assistant")).toBe(role(raw, "assistant").length);
    expect(countRole(s, "tool")).toBe(role(raw, "toolResult").length);
    expect(countParts(s, "tool-call")).toBe(rawBlocks(raw, "toolCall").length);
    expect(countParts(s, "reasoning")).toBe(rawBlocks(raw, "thinking").length);
    expect(countType(s, "thinking_level_change")).toBe(raw.filter((l) => l.type === "thinking_level_change").length);
    expect(countType(s, "model_change")).toBe(raw.filter((l) => l.type === "model_change").length);
    // The figures the fixture's notes give, so a miscount on both sides would still show.
    expect([countRole(s, "user"), countRole(s, "assistant"), countRole(s, "tool"), countParts(s, "tool-call")]).toEqual([
      88, 453, 373, 391,
    ]);
    const aborted = s.entries.find(
      (e) => e.type === "message" && e.message.role === "assistant" && e.message.finishReason === "aborted",
    );
    expect(aborted?.type === "message" && aborted.message.error?.message).toBe("Request was aborted");
    expect(s.session.cwd).toBe("/Users/badlogic/workspaces/pi-mono");
    expect(s.session.id).toBe("pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617");
  });

  it("a v3 file keeps its ids, parents, compaction, bash execution and usage", () => {
    const file = "pi/v3-real-world-trimmed.jsonl";
    const raw = rawLines(file).slice(1);
    const [s] = convertPiSession(fixture(file)).sessions;
    if (!s) throw new Error("no session");
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual(raw.map((l) => [l.id, l.parentId]));
    const compaction = s.entries.find((e) => e.type === "compaction");
    const rawCompaction = raw.find((l) => l.type === "compaction");
    expect(compaction).toMatchObject({
      firstKeptEntryId: rawCompaction?.firstKeptEntryId,
      tokensBefore: rawCompaction?.tokensBefore,
    });
    expect(compaction?.type === "compaction" && compaction.summary).toBe(rawCompaction?.summary);
    const bash = s.entries.find((e) => e.type === "custom_message");
    expect(bash).toMatchObject({ customType: "pi.bashExecution", includeInContext: false });
    expect(countParts(s, "tool-call")).toBe(2);
    expect(countRole(s, "tool")).toBe(2);
    const first = s.entries.find((e) => e.type === "message" && e.message.role === "assistant");
    expect(first?.type === "message" && first.message.tokens).toMatchObject({ input: 16570, output: 29 });
    expect(first?.type === "message" && first.message.model).toBe("fireworks/accounts/fireworks/routers/glm-5p2-fast");
    expect(s.session.leafEntryId).toBe(raw.at(-1)?.id);
  });

  it("session_info names the session", () => {
    const [s] = convertPiSession(fixture("pi/v3-smoke-redacted.jsonl")).sessions;
    expect(s?.session.title).toBe("agent-history pi smoke");
    expect(s?.entries[0]).toMatchObject({ type: "session_info", parentId: null, title: "agent-history pi smoke" });
  });

  it("counts unknown and torn lines instead of failing, with or without a final newline", () => {
    const header = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00Z", cwd: "/w" });
    const user = JSON.stringify({
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01Z",
      message: { role: "user", content: "hi" },
    });
    const odd = JSON.stringify({ type: "some_future_entry", id: "b1", parentId: "a1", timestamp: "2026-01-01T00:00:02Z" });
    const after = JSON.stringify({
      type: "message",
      id: "c1",
      parentId: "b1",
      timestamp: "2026-01-01T00:00:03Z",
      message: { role: "user", content: "again" },
    });
    const { sessions, skipped } = convertPiSession([header, user, odd, '{"type":"mess', after].join("\n"));
    expect(skipped).toEqual({ 'unknown line type "some_future_entry"': 1, "line is not JSON": 1 });
    // The child of the skipped line hangs on what the skipped line hung on.
    expect(sessions[0]?.entries.map((e) => [e.id, e.parentId])).toEqual([
      ["a1", null],
      ["c1", "a1"],
    ]);
  });

  it("refuses a file that is not a pi session", () => {
    expect(() => convertPiSession('{"hello":1}\n', "x.jsonl")).toThrow(ArborError);
    expect(() => convertPiSession("", "x.jsonl")).toThrow(/x\.jsonl is not a pi session/);
  });
});

/** Hand-made, since no real pi file with in-file branches has a licence that allows copying it. */
function branchedPi(): string {
  const t = (n: number) => `2026-02-01T10:00:${String(n).padStart(2, "0")}.000Z`;
  const lines = [
    { type: "session", version: 3, id: "branchy", timestamp: t(0), cwd: "/w" },
    { type: "message", id: "u1", parentId: null, timestamp: t(1), message: { role: "user", content: "start", timestamp: 1 } },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: t(2),
      message: {
        role: "assistant",
        content: [{ type: "text", text: "first try" }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-x",
        usage: { input: 5, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 7, cost: { total: 0.1 } },
        stopReason: "stop",
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: "u2",
      parentId: "u1",
      timestamp: t(3),
      message: { role: "user", content: [{ type: "text", text: "retry" }], timestamp: 3 },
    },
    { type: "branch_summary", id: "bs", parentId: "u2", timestamp: t(4), fromId: "a1", summary: "the first try said hello" },
    { type: "label", id: "lb", parentId: "bs", timestamp: t(5), targetId: "a1", label: "first" },
    {
      type: "message",
      id: "img",
      parentId: "lb",
      timestamp: t(6),
      message: { role: "user", content: [{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }], timestamp: 6 },
    },
    { type: "custom", id: "cu", parentId: "img", timestamp: t(7), customType: "ext.state", data: { n: 1 } },
  ];
  return lines.map((l) => JSON.stringify(l)).join("\n");
}

describe("pi round trip", () => {
  const canon = (v: unknown) =>
    JSON.stringify(v, (_k, x) =>
      x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x,
    );

  for (const [name, text] of [
    ["v3-real-world-trimmed", fixture("pi/v3-real-world-trimmed.jsonl")],
    ["v3-smoke-redacted", fixture("pi/v3-smoke-redacted.jsonl")],
    ["hand-made branches", branchedPi()],
  ] as const) {
    it(`pi → Arbor → pi writes every line back: ${name}`, () => {
      const src = text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const [s] = convertPiSession(text).sessions;
      if (!s) throw new Error("no session");
      const out = toPiSession(s)
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      // Entry timestamps are stored with milliseconds; pi's may lack them.
      const norm = (l: Record<string, unknown>) => ({ ...l, timestamp: new Date(String(l.timestamp)).toISOString() });
      expect(out.map((l) => canon(norm(l)))).toEqual(src.map((l) => canon(norm(l))));
    });
  }

  it("the hand-made file keeps its branches: two children under the first user message", () => {
    const [s] = convertPiSession(branchedPi()).sessions;
    if (!s) throw new Error("no session");
    expect(branchPoints(s.entries)).toBe(1);
    expect(s.entries.filter((e) => e.parentId === "u1").map((e) => e.id)).toEqual(["a1", "u2"]);
    expect(countParts(s, "file")).toBe(1);
  });

  it("with a leaf, only that branch and what it refers to is written", () => {
    const [s] = convertPiSession(branchedPi()).sessions;
    if (!s) throw new Error("no session");
    const ids = (leaf: string) =>
      toPiSession(s, { leaf })
        .split("\n")
        .filter(Boolean)
        .slice(1)
        .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids("a1")).toEqual(["u1", "a1"]);
    // The summary and label point at a1, on the other branch: it comes along.
    expect(ids("cu")).toEqual(["u1", "a1", "u2", "bs", "lb", "img", "cu"]);
    expect(() => toPiSession(s, { leaf: "nope" })).toThrow(/has no entry nope/);
  });

  it("a v1 file exported as v3 and imported again keeps every message and the chain", () => {
    const [first] = convertPiSession(fixture("pi/v1-linear-large-session.jsonl")).sessions;
    if (!first) throw new Error("no session");
    const v3 = toPiSession(first);
    expect(JSON.parse(v3.split("\n")[0] ?? "")).toMatchObject({ type: "session", version: 3 });
    const [again] = convertPiSession(v3).sessions;
    expect(again?.entries.map((e) => canon(e))).toEqual(first.entries.map((e) => canon(e)));
  });
});
