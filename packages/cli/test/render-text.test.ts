import { describe, expect, it } from "vitest";
import { renderMcpList } from "../src/commands/mcp-list-run.js";
import { firstLine, formatTime, oneLine, shortId, table, truncate, truncateWords, uniqueShortIds } from "../src/render/text.js";

describe("text helpers", () => {
  it("makes one displayable line", () => {
    expect(oneLine("a\tb\r\n  c\u001b[31m")).toBe("a b c [31m");
    expect(firstLine("\n \n  x y \nz")).toBe("x y");
    expect(firstLine("")).toBe("");
  });

  it("truncates with an ellipsis inside the limit", () => {
    expect(truncate("abcdef", 6)).toBe("abcdef");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("abcdef", 1)).toBe("…");
    expect(truncate("abcdef", 0)).toBe("");
  });

  it("cuts a description at a word boundary, with an ellipsis", () => {
    expect(truncateWords("Reads a file from the workspace", 100)).toBe("Reads a file from the workspace");
    expect(truncateWords("Reads a file from the workspace", 16)).toBe("Reads a file…");
    expect(truncateWords("Supercalifragilistic", 8)).toBe("Superca…");
    const [, , tool] = renderMcpList([
      {
        name: "docs",
        transport: "stdio",
        target: "node docs.js",
        state: "ready",
        tools: [{ name: "search", readOnly: true, description: `${"Searches the documentation index ".repeat(4)}\nmore` }],
      } as never,
    ]);
    expect(tool).toBe("  search (read-only)  Searches the documentation index Searches the documentation index Searches the…");
  });

  it("shortens ids and formats times in UTC", () => {
    expect(shortId("0123456789abcdef")).toBe("01234567");
    expect(shortId("abc")).toBe("abc");
    expect(formatTime("2026-11-21T06:14:03.123Z")).toBe("2026-11-21 06:14:03");
    expect(formatTime("yesterday")).toBe("yesterday");
  });

  it("gives each id a short form no other id starts with", () => {
    const ids = ["msg_0cb97c3d4001T5mD", "msg_0cb97c3d4001T5mD-results", "msg_0cb97c4e1002Xx", "0123456789abcdef"];
    const short = uniqueShortIds(ids);
    expect(ids.map(short)).toEqual(["msg_0cb97c3d4001T5mD", "msg_0cb97c3d4001T5mD-", "msg_0cb97c4", "01234567"]);
  });

  it("aligns table columns and leaves the last one unpadded", () => {
    expect(
      table(
        ["ID", "N", "TITLE"],
        [
          ["a", "10", "x"],
          ["bbb", "2", ""],
        ],
      ),
    ).toEqual(["ID   N   TITLE", "a    10  x", "bbb  2"]);
  });
});
