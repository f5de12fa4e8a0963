import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, tempDir } from "./helpers.js";

function setup() {
  const cwd = tempDir();
  const blobs = new MemoryBlobStore();
  const registry = new ToolRegistry({ blobs }).register(readTool({ blobs }));
  const ctx = fakeContext(cwd);
  return { cwd, blobs, ctx, read: (input: unknown) => registry.invoke("read", input, ctx) };
}

const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n");

describe("read", () => {
  it("shows numbered lines and says where the file ends", async () => {
    const { cwd, read, ctx } = setup();
    writeFileSync(join(cwd, "a.txt"), "alpha\r\nbeta\n");
    const out = await read({ path: "a.txt" });
    expect(out).toMatchObject({ isError: false, title: "a.txt" });
    expect(out.output).toBe("     1\talpha\n     2\tbeta\n\n(End of file: 2 lines.)");
    expect(ctx.asks).toEqual([{ permission: "read", patterns: ["a.txt"], metadata: { path: join(cwd, "a.txt") } }]);
  });

  it("reads a line range and tells the model the next offset", async () => {
    const { cwd, read } = setup();
    writeFileSync(join(cwd, "big.txt"), `${lines(100)}\n`);
    const out = await read({ path: "big.txt", offset: 10, limit: 3 });
    expect(out.output).toBe(
      "    10\tline 10\n    11\tline 11\n    12\tline 12\n\n(More lines follow. Call read with offset 13 to continue.)",
    );
    const tail = await read({ path: "big.txt", offset: 99 });
    expect(tail.output).toBe("    99\tline 99\n   100\tline 100\n\n(End of file: 100 lines.)");
  });

  it("keeps a page under the output cap and shortens very long lines", async () => {
    const { cwd, read } = setup();
    writeFileSync(join(cwd, "wide.txt"), `${"x".repeat(5000)}\n${"y".repeat(100)}\n`.repeat(40));
    const out = await read({ path: "wide.txt" });
    expect(out.truncated).toBeUndefined();
    expect(Buffer.byteLength(out.output)).toBeLessThanOrEqual(50 * 1024 + 200);
    expect(out.output).toContain("… [line truncated, 5000 characters]");
    expect(out.output).toMatch(/Call read with offset \d+ to continue/);
  });

  it("reports an empty file, and an offset past the end", async () => {
    const { cwd, read } = setup();
    writeFileSync(join(cwd, "empty.txt"), "");
    writeFileSync(join(cwd, "two.txt"), "a\nb\n");
    expect((await read({ path: "empty.txt" })).output).toBe("(empty file)");
    const past = await read({ path: "two.txt", offset: 5 });
    expect(past).toMatchObject({ isError: true, code: "tool_failed" });
    expect(past.output).toBe("offset 5 is past the end of two.txt, which has 2 lines. Use a smaller offset.");
  });

  it("refuses directories and binary files clearly", async () => {
    const { cwd, read } = setup();
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, "blob.dat2"), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    writeFileSync(join(cwd, "pic.png"), "not really a png");
    const dir = await read({ path: "src" });
    expect(dir).toMatchObject({ isError: true, code: "tool_failed" });
    expect(dir.output).toBe("src is a directory, not a file. Use the list tool to see what it holds.");
    expect((await read({ path: "blob.dat2" })).output).toMatch(/^blob\.dat2 is a binary file \(5 bytes\)/);
    expect((await read({ path: "pic.png" })).output).toMatch(/^pic\.png is a binary file/);
  });

  it("suggests similar names for a missing file", async () => {
    const { cwd, read } = setup();
    writeFileSync(join(cwd, "index.ts"), "");
    const out = await read({ path: "Index.js" });
    expect(out).toMatchObject({ isError: true, code: "tool_failed" });
    expect(out.output).toBe("File not found: Index.js. Did you mean one of: index.ts?");
  });

  it("rejects bad arguments with the field named", async () => {
    const { read } = setup();
    expect((await read({ path: "a", offset: 0 })).output).toMatch(/- offset: .*>=1/);
    expect((await read({ file: "a" })).output).toMatch(/- path: .*expected string/);
  });

  it("pages through a saved blob", async () => {
    const { read, blobs } = setup();
    const ref = await blobs.put(`${lines(30)}\n`);
    const out = await read({ path: `blob:${ref}`, offset: 29 });
    expect(out.output).toBe("    29\tline 29\n    30\tline 30\n\n(End of file: 30 lines.)");
    const missing = await read({ path: `blob:sha256-${"0".repeat(64)}` });
    expect(missing).toMatchObject({ isError: true, code: "blob_not_found" });
    const malformed = await read({ path: "blob:nope" });
    expect(malformed).toMatchObject({ isError: true, code: "invalid_input" });
    expect(malformed.output).toContain("is not a blob ref");
  });

  it("stops when the user rejects reading the file", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, ".env"), "SECRET=1");
    const ctx = fakeContext(cwd, { answer: () => "reject" });
    const out = await new ToolRegistry().register(readTool()).invoke("read", { path: ".env" }, ctx);
    expect(out).toMatchObject({ isError: true, code: "permission_rejected" });
    expect(out.output).not.toContain("SECRET");
  });
});
