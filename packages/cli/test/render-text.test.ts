import { describe, expect, it } from "vitest";
import { firstLine, formatTime, oneLine, shortId, table, truncate } from "../src/render/text.js";

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

  it("shortens ids and formats times in UTC", () => {
    expect(shortId("0123456789abcdef")).toBe("01234567");
    expect(shortId("abc")).toBe("abc");
    expect(formatTime("2026-11-21T06:14:03.123Z")).toBe("2026-11-21 06:14:03");
    expect(formatTime("yesterday")).toBe("yesterday");
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
