import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { blobRef, FileBlobStore } from "../../src/tools/blob-store.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { capOutput, countLines, cutOutput, DEFAULT_OUTPUT_LIMITS, renderCut } from "../../src/tools/output-cap.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";
import { fakeContext, tempDir } from "./helpers.js";

describe("cutOutput (pure)", () => {
  it("leaves output within both limits alone", () => {
    expect(cutOutput("a\nb\n", { maxLines: 2, maxBytes: 4 })).toEqual({ cut: false, text: "a\nb\n" });
  });

  it("keeps the head up to the line limit", () => {
    expect(cutOutput("1\n2\n3\n4", { maxLines: 2, maxBytes: 100 })).toEqual({
      cut: true,
      keep: "head",
      text: "1\n2",
      keptLines: 2,
      totalLines: 4,
      keptBytes: 3,
      totalBytes: 7,
    });
  });

  it("keeps the tail up to the line limit", () => {
    expect(cutOutput("1\n2\n3\n4\n", { maxLines: 2, maxBytes: 100 }, "tail")).toEqual({
      cut: true,
      keep: "tail",
      text: "3\n4",
      keptLines: 2,
      totalLines: 4,
      keptBytes: 3,
      totalBytes: 8,
    });
    expect(cutOutput("\n\nx", { maxLines: 2, maxBytes: 100 }, "tail")).toMatchObject({
      text: "\nx",
      keptLines: 2,
      totalLines: 3,
    });
    expect(cutOutput("\n\nx", { maxLines: 1, maxBytes: 100 }, "head")).toMatchObject({ text: "", keptLines: 1 });
  });

  it("cuts at the byte limit between lines, at either end", () => {
    const text = "aaaa\nbbbb\ncccc\n";
    expect(cutOutput(text, { maxLines: 100, maxBytes: 12 })).toMatchObject({ text: "aaaa\nbbbb", keptLines: 2, keptBytes: 9 });
    expect(cutOutput(text, { maxLines: 100, maxBytes: 12 }, "tail")).toMatchObject({ text: "bbbb\ncccc", keptLines: 2 });
  });

  it("cuts a single giant line without splitting a multi-byte character", () => {
    expect(cutOutput("é".repeat(10), { maxLines: 100, maxBytes: 5 })).toMatchObject({ text: "éé", keptLines: 0, keptBytes: 4 });
    expect(cutOutput(`x${"é".repeat(10)}`, { maxLines: 100, maxBytes: 5 }, "tail")).toMatchObject({ text: "éé", keptBytes: 4 });
  });

  it("uses 2,000 lines and 50 KB by default", () => {
    expect(DEFAULT_OUTPUT_LIMITS).toEqual({ maxLines: 2000, maxBytes: 51200 });
    expect(cutOutput("x\n".repeat(2000)).cut).toBe(false);
    expect(cutOutput("x\n".repeat(2001))).toMatchObject({ cut: true, keptLines: 2000 });
    expect(cutOutput("y".repeat(51200)).cut).toBe(false);
    expect(cutOutput("y".repeat(51201)).cut).toBe(true);
  });

  it("counts lines as a reader does", () => {
    expect([countLines(""), countLines("a"), countLines("a\n"), countLines("a\nb"), countLines("\n\n")]).toEqual([0, 1, 1, 2, 2]);
  });

  it("renders the note after a head and before a tail", () => {
    const ref = blobRef("x");
    const head = cutOutput("1\n2\n3", { maxLines: 1, maxBytes: 100 });
    const tail = cutOutput("1\n2\n3", { maxLines: 1, maxBytes: 100 }, "tail");
    if (!head.cut || !tail.cut) throw new Error("expected cuts");
    expect(renderCut(head, ref)).toBe(
      `1\n\n[Output truncated: showed the first 1 of 3 lines (1 of 5 bytes). The full output is saved; to see the rest call ` +
        `the read tool with path "blob:${ref}" and offset 2 (add limit to read less). Prefer narrowing the command (grep, head, tail) to reading it all.]`,
    );
    expect(renderCut(tail, ref)).toBe(
      `[Output truncated: showing the last 1 of 3 lines (1 of 5 bytes). The full output is saved; to see the lines before, ` +
        `call the read tool with path "blob:${ref}" and offset 1 (limit 2 covers them). Prefer narrowing the command (grep, head, tail) to reading it all.]\n\n3`,
    );
  });
});

describe("FileBlobStore", () => {
  it("stores by content hash, deduplicates, and reads back", async () => {
    const dir = tempDir();
    const store = new FileBlobStore(dir);
    const ref = await store.put("hello");
    expect(ref).toBe(blobRef("hello"));
    expect(ref).toBe("sha256-2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    expect(await store.put(Buffer.from("hello"))).toBe(ref);
    const folder = join(dir, "sha256", "2c");
    expect(readdirSync(folder)).toEqual([ref.slice("sha256-2c".length)]);
    expect(readFileSync(join(folder, readdirSync(folder)[0]!), "utf8")).toBe("hello");
    expect(Buffer.from((await store.get(ref))!).toString()).toBe("hello");
    expect(await new FileBlobStore(dir, { fsync: true }).get(ref)).toBeDefined();
  });

  it("answers undefined for a missing blob and refuses malformed refs", async () => {
    const store = new FileBlobStore(tempDir());
    expect(await store.get(blobRef("never stored"))).toBeUndefined();
    await expect(store.get("../../etc/passwd")).rejects.toMatchObject({ code: "invalid_input" });
  });
});

describe("output cap through the registry", () => {
  it("keeps the full output in the blob store and read pages through the rest", async () => {
    const cwd = tempDir();
    const blobs = new FileBlobStore(join(cwd, ".blobs"));
    const full = Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join("\n");
    const flood = defineTool({
      name: "flood",
      description: "prints a lot",
      input: z.object({}),
      execute: async () => ({ output: full }),
    });
    const registry = new ToolRegistry({ blobs }).register(flood, readTool({ blobs }));
    const ctx = fakeContext(cwd);

    const out = await registry.invoke("flood", {}, ctx);
    const ref = out.truncated?.fullOutputRef;
    expect(ref).toBe(blobRef(full));
    expect(out.output.split("\n").slice(0, 2000).at(-1)).toBe("row 2000");
    expect(out.output).toContain("[Output truncated: showed the first 2000 of 2500 lines");
    expect(out.output).toContain(`call the read tool with path "blob:${ref}" and offset 2001`);

    const rest = await registry.invoke("read", { path: `blob:${ref}`, offset: 2001 }, ctx);
    expect(rest.isError).toBe(false);
    expect(rest.output.split("\n")[0]).toBe("  2001\trow 2001");
    expect(rest.output).toContain("  2500\trow 2500\n\n(End of file: 2500 lines.)");
    // Reading the blob is not a file access in the workspace: no permission was asked.
    expect(ctx.asks).toEqual([]);
  });

  it("capOutput stores nothing when the output fits", async () => {
    const blobs = new FileBlobStore(tempDir());
    expect(await capOutput("short", blobs)).toEqual({ output: "short" });
    expect(await blobs.get(blobRef("short"))).toBeUndefined();
  });
});
