import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { htmlToText } from "../../src/knowledge/html-to-text.js";
import { fetchTool } from "../../src/tools/builtin/fetch.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type FakeContext, fakeContext, serveForFile, tempDir } from "./helpers.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes: Record<string, Handler> = {};
const server = createServer((req, res) => {
  const handler = routes[req.url ?? ""];
  if (handler) handler(req, res);
  else res.writeHead(404, "Not Found").end("no such page");
});
const url = serveForFile(server);

function setup() {
  const ctx = fakeContext(tempDir());
  const registry = new ToolRegistry().register(fetchTool({ maxBytes: 1024, maxTimeoutMs: 5000 }));
  return { ctx, run: (input: unknown, c: FakeContext = ctx) => registry.invoke("fetch", input, c) };
}

routes["/page"] = (_req, res) =>
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
    `<!doctype html><html><head><title>Docs &amp; more</title><style>p{color:red}</style></head>
     <body><script>alert("x")</script><h1>Install</h1><p>Run <code>npm i</code>&nbsp;now.</p>
     <ul><li>one</li><li>two &lt;3</li></ul><!-- hidden --></body></html>`,
  );
routes["/data.json"] = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
routes["/declared-big"] = (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5000));
routes["/streamed-big"] = (_req, res) => {
  res.writeHead(200, { "content-type": "text/plain" });
  res.write("y".repeat(800));
  res.write("y".repeat(800)); // chunked, no content-length: the limit is found while reading
  res.end();
};
routes["/hang"] = () => {}; // never answers
routes["/image"] = (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([137, 80, 78, 71]));

describe("fetch", () => {
  it("turns HTML into readable text and asks for the URL", async () => {
    const { ctx, run } = setup();
    const out = await run({ url: `${url()}/page` });
    expect(out).toMatchObject({ isError: false, title: `${url()}/page (text/html)` });
    expect(out.output).toBe("Docs & more\n\n# Install\n\nRun npm i now.\n\n- one\n- two <3");
    expect(ctx.asks).toEqual([{ permission: "fetch", patterns: [`${url()}/page`], metadata: { url: `${url()}/page` } }]);
    expect((await run({ url: `${url()}/page`, format: "raw" })).output).toContain("<h1>Install</h1>");
  });

  it("returns JSON as it is", async () => {
    const { run } = setup();
    expect((await run({ url: `${url()}/data.json` })).output).toBe('{"ok":true}');
  });

  it("refuses responses over the size limit, declared or streamed", async () => {
    const { run } = setup();
    for (const path of ["/declared-big", "/streamed-big"]) {
      const out = await run({ url: `${url()}${path}` });
      expect(out).toMatchObject({ isError: true, code: "tool_failed" });
      expect(out.output).toBe(
        `The response from ${url()}${path} is larger than 1 KB, the fetch limit. Fetch a more specific page or use bash with curl and head.`,
      );
    }
  });

  it("gives up after the timeout", async () => {
    const { run } = setup();
    const out = await run({ url: `${url()}/hang`, timeout: 0.2 });
    expect(out).toMatchObject({ isError: true, code: "tool_failed" });
    expect(out.output).toBe(`Fetching ${url()}/hang timed out after 0.2 s. Try again or raise timeout.`);
  });

  it("stops when the run is aborted", async () => {
    const { ctx, run } = setup();
    routes["/abort-me"] = () => ctx.controller.abort();
    const out = await run({ url: `${url()}/abort-me` });
    expect(out).toMatchObject({ isError: true, code: "aborted", output: `Fetching ${url()}/abort-me was aborted.` });
  });

  it("reports error statuses, non-text content and unreachable hosts", async () => {
    const { run } = setup();
    expect((await run({ url: `${url()}/missing` })).output).toBe(`GET ${url()}/missing answered 404 Not Found: no such page`);
    expect((await run({ url: `${url()}/image` })).output).toBe(
      `${url()}/image is image/png, not text; fetch only returns textual content.`,
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await run({ url: `http://127.0.0.1:${port}/` });
    expect(refused.output).toMatch(new RegExp(`^Fetching http://127.0.0.1:${port}/ failed: .*ECONNREFUSED`));
  });

  it("rejects bad arguments", async () => {
    const { run } = setup();
    expect((await run({ url: "file:///etc/passwd" })).output).toBe("url must use http or https, not file.");
    expect((await run({ url: "not a url" })).output).toBe(
      'url "not a url" is not a valid URL; give a full http:// or https:// URL.',
    );
    expect((await run({ url: `${url()}/page`, timeout: 60 })).output).toBe("timeout 60 s is over the limit of 5 s.");
    expect((await run({ url: `${url()}/page`, format: "pdf" })).output).toMatch(/- format: /);
  });
});

describe("htmlToText", () => {
  it("decodes numeric entities and keeps table cells apart", () => {
    expect(htmlToText("<table><tr><td>a&#38;b</td><td>&#x263A;</td></tr></table>")).toBe("a&b\t☺");
  });
});
