import { describe, expect, it } from "vitest";
import { ArborError } from "../../src/errors.js";
import { convertCodexSession } from "../../src/interop/codex/import.js";
import { convertOpenCodeRows } from "../../src/interop/opencode/import.js";
import { type SessionExport, SessionExportSchema } from "../../src/store/export-format.js";
import { countParts, countRole, countType, fixture, parts, rawLines } from "./fixtures.js";

type Raw = Record<string, unknown>;
const CODEX = "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";

describe("Codex import", () => {
  const lines = rawLines(CODEX);
  const items = (type: string, role?: string) =>
    lines.filter(
      (l) =>
        l.type === "response_item" &&
        (l.payload as Raw).type === type &&
        (role === undefined || (l.payload as Raw).role === role),
    );
  const { sessions, skipped } = convertCodexSession(fixture(CODEX));
  const s = sessions[0] as SessionExport;

  it("keeps every message, reasoning item, tool call and output of the response stream", () => {
    expect(sessions).toHaveLength(1);
    expect(SessionExportSchema.safeParse(s).success).toBe(true);
    const calls = items("function_call").length + items("custom_tool_call").length + items("web_search_call").length;
    expect(countParts(s, "tool-call")).toBe(calls);
    expect(countParts(s, "tool-result")).toBe(calls);
    expect(countParts(s, "reasoning")).toBe(items("reasoning").length);
    expect(countRole(s, "user")).toBe(items("message", "user").length);
    // The developer message and the base instructions.
    expect(countRole(s, "system")).toBe(items("message", "developer").length + 1);
    const assistantText = s.entries.flatMap((e) =>
      e.type === "message" && e.message.role === "assistant" ? e.message.content.filter((p) => p.type === "text") : [],
    );
    expect(assistantText).toHaveLength(items("message", "assistant").length);
    expect([calls, items("reasoning").length]).toEqual([105, 25]);
    // Every call's output follows it and names its tool.
    const names = new Map<string, string>();
    for (const e of s.entries) {
      if (e.type !== "message") continue;
      for (const p of e.message.content) {
        if (p.type === "tool-call") names.set(p.toolCallId, p.toolName);
        if (p.type === "tool-result") expect(names.get(p.toolCallId)).toBe(p.toolName);
      }
    }
  });

  it("is one chain, with the model and effort of the turn contexts and token usage on the responses", () => {
    expect(s.entries.every((e, i) => e.parentId === (i === 0 ? null : s.entries[i - 1]?.id))).toBe(true);
    expect(countType(s, "model_change")).toBe(1);
    expect(s.entries.find((e) => e.type === "model_change")).toMatchObject({ model: "openai/gpt-5.5" });
    expect(s.entries.find((e) => e.type === "thinking_level_change")).toMatchObject({ thinkingLevel: "medium" });
    const counted = lines.filter(
      (l) => (l.payload as Raw).type === "token_count" && (l.payload as { info?: unknown }).info,
    ).length;
    const priced = s.entries.filter((e) => e.type === "message" && e.message.tokens !== undefined).length;
    expect(priced).toBeGreaterThan(0);
    expect(priced).toBeLessThanOrEqual(counted);
    expect(s.session).toMatchObject({
      id: "codex-019e1625-789d-76c0-80ab-3724b5ddb799",
      cwd: "/Users/Sample_User/repos/codemie-ai/codemie-code",
    });
  });

  it("counts the display events it leaves out, exactly", () => {
    const events = lines.filter((l) => l.type === "event_msg" && (l.payload as Raw).type !== "token_count");
    expect(Object.values(skipped).reduce((a, b) => a + b, 0)).toBe(events.length);
    expect(skipped['event_msg "exec_command_end" (repeats the conversation for the screen)']).toBe(43);
  });

  it("keeps an image the user attached", () => {
    const meta = JSON.stringify({
      timestamp: "2026-05-11T08:26:55.042Z",
      type: "session_meta",
      payload: { id: "img", cwd: "/w" },
    });
    const user = JSON.stringify({
      timestamp: "2026-05-11T08:27:00.000Z",
      type: "response_item",
      payload: {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "look" },
          { type: "input_image", image_url: "data:image/png;base64,aGVsbG8=" },
        ],
      },
    });
    const [img] = convertCodexSession(`${meta}\n${user}`).sessions as [SessionExport];
    expect(parts(img)).toEqual([
      { type: "text", text: "look" },
      { type: "file", mediaType: "image/png", data: "aGVsbG8=" },
    ]);
  });

  it("refuses a file without session_meta", () => {
    expect(() => convertCodexSession('{"type":"response_item","payload":{}}', "r.jsonl")).toThrow(
      /r\.jsonl is not a Codex rollout/,
    );
  });
});

describe("OpenCode import", () => {
  const dump = rawLines("opencode/question.rows.jsonl");
  const rows = {
    sessions: dump.filter((l) => l.table === "session_v2").map((l) => l.row),
    messages: dump.filter((l) => l.table === "session_message").map((l) => l.row),
  };

  it("keeps the session, its messages, reasoning and the question tool with its answer", () => {
    const conversions = convertOpenCodeRows(rows);
    expect(conversions).toHaveLength(1);
    const { sessions, skipped } = conversions[0] as { sessions: SessionExport[]; skipped: Record<string, number> };
    const s = sessions[0] as SessionExport;
    expect(SessionExportSchema.safeParse(s).success).toBe(true);
    expect(s.session).toMatchObject({
      id: "opencode-ses_f34687c4effe4c1OUSq8A7KEeN",
      title: "Color preference: red, green or blue",
      cwd: "/Users/dev/oc-tools",
    });
    const byType = (t: string) => rows.messages.filter((m) => (m as Raw).type === t).length;
    expect(countRole(s, "user")).toBe(byType("user"));
    expect(countRole(s, "assistant")).toBe(byType("assistant"));
    expect(countParts(s, "reasoning")).toBe(2);
    expect(countParts(s, "tool-call")).toBe(1);
    const result = parts(s).find((p) => p.type === "tool-result");
    expect(result).toMatchObject({ toolName: "question", output: { type: "text" } });
    expect(JSON.stringify(result)).toContain('=\\"Green\\"');
    const text = parts(s).filter((p) => p.type === "text");
    expect(JSON.stringify(text)).toContain("🌿 — a fresh");
    expect(skipped).toEqual({ "idle record (the end of a turn)": 1 });
    expect(countType(s, "model_change")).toBe(1);
  });

  it("a sub-agent session becomes a sub-trace of its parent", () => {
    const child = {
      ...(rows.sessions[0] as Raw),
      id: "ses_child",
      parent_id: "ses_f34687c4effe4c1OUSq8A7KEeN",
      title: "look around",
      time_created: 1790122100000,
    };
    const msg = {
      id: "msg_c1",
      session_id: "ses_child",
      type: "user",
      seq: 1,
      time_created: 1790122100001,
      data: JSON.stringify({ text: "look" }),
    };
    const [c] = convertOpenCodeRows({ sessions: [...rows.sessions, child], messages: [...rows.messages, msg] });
    expect(c?.sessions.map((s) => s.session.parentSessionId ?? null)).toEqual([null, "opencode-ses_f34687c4effe4c1OUSq8A7KEeN"]);
    expect(c?.sessions[1]?.session.id).toMatch(/^opencode-ses_f34687c4effe4c1OUSq8A7KEeN@delegate-\d{14}-001$/);
  });

  it("refuses rows without a session", () => {
    expect(() => convertOpenCodeRows({ sessions: [], messages: [] }, "db")).toThrow(ArborError);
  });
});
