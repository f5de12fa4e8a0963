import { describe, expect, it } from "vitest";
import { editRegions } from "../../src/tools/builtin/edit-regions.js";

const file = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("edit regions", () => {
  it("gives the replaced lines with three lines of context and their line numbers in the old and new file", () => {
    const content = file(20);
    const at = content.indexOf("line 10\n");
    const [region] = editRegions(content, "line 10", "line ten\nline ten and a half", [at]);
    expect(region).toEqual({
      oldLine: 7,
      newLine: 7,
      before: "line 7\nline 8\nline 9\nline 10\nline 11\nline 12\nline 13\n",
      after: "line 7\nline 8\nline 9\nline ten\nline ten and a half\nline 11\nline 12\nline 13\n",
    });
  });

  it("stops the context at the file's edges and shifts later occurrences by the lines earlier ones added", () => {
    const content = "a\nx\nb\nc\nd\ne\nf\ng\nh\nx\ni\n";
    const starts = [content.indexOf("x"), content.lastIndexOf("x")];
    const [first, second] = editRegions(content, "x", "y\nz", starts);
    expect(first).toMatchObject({ oldLine: 1, newLine: 1, before: "a\nx\nb\nc\nd\n" });
    // The first replacement added a line, so the second region starts a line later in the new file.
    expect(second).toMatchObject({ oldLine: 7, newLine: 8, before: "f\ng\nh\nx\ni\n", after: "f\ng\nh\ny\nz\ni\n" });
  });

  it("leaves the regions out when there are too many to keep", () => {
    const content = "x\n".repeat(50);
    const starts = Array.from({ length: 50 }, (_, i) => i * 2);
    expect(editRegions(content, "x", "y", starts)).toEqual([]);
  });
});
