import type { Entry } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { messagePreview, summarizeEntry } from "../src/render/entry.js";

const base = { id: "e1", parentId: null, timestamp: "2026-11-21T06:00:00.000Z" } as const;

describe("summarizeEntry", () => {
  it("names messages by role and previews their first non-blank line", () => {
    expect(
      summarizeEntry({
        ...base,
        type: "message",
        message: { role: "user", content: [{ type: "text", text: "\n\n  first\nsecond" }] },
      }),
    ).toEqual({
      kind: "user",
      preview: "first",
    });
    expect(
      summarizeEntry({ ...base, type: "message", message: { role: "system", content: [{ type: "text", text: "Be brief." }] } })
        .kind,
    ).toBe("system");
  });

  it("describes assistant tool calls, tool results, files, reasoning and errors", () => {
    expect(
      messagePreview({
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: {} },
          { type: "tool-call", toolCallId: "c2", toolName: "grep", input: {} },
        ],
      }),
    ).toBe("tool call: read, grep");
    expect(
      messagePreview({
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: {} },
        ],
      }),
    ).toBe("Let me look. → tool call: read");
    expect(messagePreview({ role: "assistant", content: [{ type: "reasoning", text: "hmm\nmore" }] })).toBe("(thinking) hmm");
    expect(
      messagePreview({
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "error-text", value: "ENOENT\nstack" } },
        ],
      }),
    ).toBe("read failed: ENOENT");
    expect(
      messagePreview({
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "ls", output: { type: "json", value: ["a", "b"] } }],
      }),
    ).toBe('ls: ["a","b"]');
    expect(messagePreview({ role: "user", content: [{ type: "file", mediaType: "image/png", filename: "shot.png" }] })).toBe(
      "[file shot.png]",
    );
    expect(messagePreview({ role: "assistant", content: [], error: { message: "rate limited\nretry later" } })).toBe(
      "(error: rate limited)",
    );
  });

  it("names every other entry type with what it changes", () => {
    const cases: [Entry, string, string][] = [
      [{ ...base, type: "thinking_level_change", thinkingLevel: "high" }, "thinking_level_change", "thinking level → high"],
      [{ ...base, type: "thinking_level_change", thinkingLevel: 8000 }, "thinking_level_change", "thinking level → 8000 tokens"],
      [{ ...base, type: "model_change", model: "openai/gpt-4o" }, "model_change", "model → openai/gpt-4o"],
      [
        { ...base, type: "compaction", summary: "We did X.\nThen Y.", firstKeptEntryId: null, tokensBefore: 1200 },
        "compaction",
        "We did X. (was 1200 tokens)",
      ],
      [
        { ...base, type: "branch_summary", fromId: "abcdef123456", summary: "Tried Z" },
        "branch_summary",
        "from abcdef12: Tried Z",
      ],
      [{ ...base, type: "custom", customType: "bookmark" }, "custom", "bookmark"],
      [
        {
          ...base,
          type: "custom_message",
          customType: "reminder",
          content: "Stay on task\nplease",
          display: true,
          includeInContext: true,
        },
        "custom_message",
        "reminder: Stay on task",
      ],
      [{ ...base, type: "label", targetId: "abcdef123456", label: "good" }, "label", 'abcdef12 = "good"'],
      [{ ...base, type: "label", targetId: "abcdef123456" }, "label", "clear label on abcdef12"],
      [{ ...base, type: "session_info", title: "My session" }, "session_info", 'title "My session"'],
      [
        {
          ...base,
          type: "subagent_batch",
          batchId: "b1",
          mode: "explore",
          tasks: [{ task: "look at A" }, { task: "look at B" }],
        },
        "subagent_batch",
        "explore, 2 tasks: look at A; look at B",
      ],
      [
        {
          ...base,
          type: "subagent_result",
          batchId: "b1",
          subSessionId: "s1@explore-20261121060000-001",
          status: "completed",
          summary: "Found it",
          metadata: { processEvents: [], evidenceSummaries: [], toolRuntimeRoutes: [] },
        },
        "subagent_result",
        "completed s1@explore-20261121060000-001: Found it",
      ],
    ];
    for (const [entry, kind, preview] of cases) expect(summarizeEntry(entry)).toEqual({ kind, preview });
  });
});
