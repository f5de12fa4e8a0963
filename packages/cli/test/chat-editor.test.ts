import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  completeFile,
  deleteBack,
  draftOf,
  EMPTY_DRAFT,
  enter,
  insert,
  loadHistory,
  saveToHistory,
  walk,
} from "../src/chat/editor.js";
import { PLAIN_MARKDOWN, renderMarkdown } from "../src/chat/markdown.js";

describe("the chat's prompt editor", () => {
  it("sends on Enter, and continues on a new line after a backslash", () => {
    const typed = insert(EMPTY_DRAFT, "first line\\");
    const next = enter(typed);
    expect(next.send).toBeUndefined();
    expect(next.draft.text).toBe("first line\n");
    const sent = enter(insert(next.draft, "second"));
    expect(sent.send).toBe("first line\nsecond");
    expect(sent.draft).toEqual(EMPTY_DRAFT);
    expect(deleteBack(draftOf("ab")).text).toBe("a");
  });

  it("walks the history past the draft's first line and gives back what was typed", () => {
    const history = ["one", "two"];
    const up = walk(draftOf("typing"), history, "up");
    expect(up.text).toBe("two");
    expect(walk(up, history, "up").text).toBe("one");
    expect(walk(walk(up, history, "up"), history, "up").text).toBe("one");
    expect(walk(up, history, "down").text).toBe("typing");
    // Within a multi-line draft, Up moves between its lines first.
    const multi = walk(draftOf("a\nb"), history, "up");
    expect(multi.text).toBe("a\nb");
    expect(multi.cursor).toBe(1);
  });

  it("completes an @path from the workspace, listing the choices when there are several", () => {
    const ws = mkdtempSync(join(tmpdir(), "arbor-chat-editor-"));
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "main.ts"), "");
    writeFileSync(join(ws, "src", "mod.ts"), "");
    writeFileSync(join(ws, "README.md"), "");
    expect(completeFile(draftOf("look at @sr"), ws).draft.text).toBe("look at @src/");
    const several = completeFile(draftOf("look at @src/m"), ws);
    expect(several.choices).toEqual(["src/main.ts", "src/mod.ts"]);
    expect(completeFile(draftOf("look at @src/ma"), ws).draft.text).toBe("look at @src/main.ts");
    expect(completeFile(draftOf("no at-word"), ws).choices).toEqual([]);
    saveToHistory(ws, "a\nmulti-line prompt");
    saveToHistory(ws, "second");
    expect(loadHistory(ws)).toEqual(["a\nmulti-line prompt", "second"]);
  });
});

describe("Markdown for the terminal", () => {
  it("drops the markup and draws lists, quotes, headings and code blocks", () => {
    const out = renderMarkdown(
      "# Title\nSome **bold**, *italic* and `code`, a [link](https://x.dev).\n\n- one\n- [x] done\n1. first\n> quoted\n```ts\nconst a = 1;\n```",
      PLAIN_MARKDOWN,
    );
    expect(out.split("\n")).toEqual([
      "Title",
      "Some bold, italic and code, a link (https://x.dev).",
      "",
      "• one",
      "☑ done",
      "1. first",
      "│ quoted",
      "  ts",
      "  const a = 1;",
    ]);
    // Half-streamed: an open fence still renders as code, a lone asterisk stays.
    expect(renderMarkdown("a * b\n```\nx", PLAIN_MARKDOWN)).toBe("a * b\n  x");
  });
});
