import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fetchTool } from "../../src/tools/builtin/fetch.js";
import { readTool } from "../../src/tools/builtin/read.js";
import { throttleProgress } from "../../src/tools/progress-throttle.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { fakeContext, serveForFile, tempDir } from "./helpers.js";

const BIG = 600 * 1024;
const server = createServer((req, res) => {
  if (req.url === "/small") {
    res.writeHead(200, { "content-type": "text/plain" }).end("small");
    return;
  }
  res.writeHead(200, { "content-type": "text/plain", "content-length": String(BIG) });
  // Written in pieces so the body arrives in several chunks.
  for (let i = 0; i < 6; i++) res.write("x".repeat(BIG / 6));
  res.end();
});
const url = serveForFile(server);

describe("tool progress", () => {
  it("a burst of reports sends the first at once and the latest on flush, nothing in between", () => {
    const sent: unknown[] = [];
    const progress = throttleProgress((update) => sent.push(update.metadata?.n), 10_000);
    for (let n = 1; n <= 50; n++) progress.report({ metadata: { n } });
    expect(sent).toEqual([1]);
    progress.flush();
    expect(sent).toEqual([1, 50]);
    progress.flush();
    expect(sent).toEqual([1, 50]);
  });

  it("a long fetch reports the bytes received against the declared size; a small one reports nothing", async () => {
    const ctx = fakeContext(tempDir());
    const registry = new ToolRegistry().register(fetchTool({ maxBytes: 1024 * 1024, maxTimeoutMs: 5000 }));
    expect((await registry.invoke("fetch", { url: `${url()}/small` }, ctx)).isError).toBe(false);
    expect(ctx.progress).toEqual([]);
    const out = await registry.invoke("fetch", { url: `${url()}/big` }, ctx);
    expect(out.isError).toBe(false);
    expect(ctx.progress.length).toBeGreaterThan(0);
    expect(ctx.progress.at(-1)).toEqual({ title: `${url()}/big`, metadata: { receivedBytes: BIG, totalBytes: BIG } });
  });

  it("a long read reports how far it got; a small file reports nothing", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "big.txt"), `${"line of text\n".repeat(200_000)}`);
    writeFileSync(join(cwd, "small.txt"), "one\n");
    const ctx = fakeContext(cwd);
    const registry = new ToolRegistry().register(readTool());
    expect((await registry.invoke("read", { path: "small.txt" }, ctx)).isError).toBe(false);
    expect(ctx.progress).toEqual([]);
    expect((await registry.invoke("read", { path: "big.txt" }, ctx)).isError).toBe(false);
    expect(ctx.progress.length).toBeGreaterThan(0);
    expect(ctx.progress[0]).toMatchObject({ title: "big.txt", metadata: { totalBytes: 2_600_000 } });
  });
});
