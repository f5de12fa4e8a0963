import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, openStore } from "@arbor/core";
import { MemoryBlobStore } from "@arbor/core/store";
import { scriptedModel, text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { createServer, isLoopbackHost } from "../src/index.js";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

/** A raw HTTP request, for headers fetch will not let a test set (Host) or bodies sent in chunks. */
function raw(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; chunks?: string[] },
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, method: options.method ?? "GET", path: options.path, headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

describe("security", () => {
  it("with a token, every route but health needs the bearer token", async () => {
    const { api } = await startServer({ server: { token: "s3cret-token" }, script: [[text("hi")]] });
    expect((await api("/api/health", { token: "", headers: { authorization: "" } })).status).toBe(200);
    const missing = await api("/api/sessions", { headers: { authorization: "" } });
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await errorOf(missing)).toMatchObject({ status: 401, code: "unauthorized" });
    expect(await errorOf(await api("/api/sessions", { token: "wrong" }))).toMatchObject({ status: 401 });
    expect(await errorOf(await api("/api/sessions", { token: "s3cret-token-and-more" }))).toMatchObject({ status: 401 });
    expect(await errorOf(await api("/api/sessions", { headers: { authorization: "Basic s3cret-token" } }))).toMatchObject({
      status: 401,
    });
    expect(await errorOf(await api("/api/openapi.json", { headers: { authorization: "" } }))).toMatchObject({ status: 401 });
    expect(await errorOf(await api("/api/chat", { json: { message: "hi" }, token: "nope" }))).toMatchObject({ status: 401 });
    expect(await errorOf(await api("/api/nosuchroute", { headers: { authorization: "" } }))).toMatchObject({ status: 401 });
    expect((await api("/api/sessions")).status).toBe(200);
    const run = await readSse(await api("/api/chat", { json: { message: "hi" } }));
    expect(run.at(-1)?.event.type).toBe("done");
  });

  it("listen refuses a non-loopback host without a token, and binds one with a token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-listen-"));
    const store = await openStore(join(dir, "store"));
    const runtime = createRuntime({ store, env: {}, blobs: new MemoryBlobStore(), model: scriptedModel([]) });
    try {
      const open = createServer({ runtime });
      await expect(open.listen({ host: "0.0.0.0", port: 0 })).rejects.toThrow(/without a token/);
      await expect(open.listen({ host: "::", port: 0 })).rejects.toThrow(/without a token/);
      const local = await open.listen({ host: "localhost", port: 0 });
      await local.close();
      const guarded = createServer({ runtime, token: "t0ken" });
      const all = await guarded.listen({ host: "0.0.0.0", port: 0 });
      expect(all.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
      expect((await fetch(`http://127.0.0.1:${all.port}/api/health`)).status).toBe(200);
      await all.close();
      expect(() => createServer({ runtime, token: "" })).toThrow(/token/);
    } finally {
      await runtime.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "example.com", "::ffff:10.0.0.1"].some(isLoopbackHost)).toBe(false);
  });

  it("without a token only loopback Host names are served (DNS rebinding)", async () => {
    const { url } = await startServer();
    expect((await raw(url, { path: "/api/health", headers: { host: "localhost:4096" } })).status).toBe(200);
    const rebound = await raw(url, { path: "/api/sessions", headers: { host: "evil.example:4096" } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: "forbidden_host" } });
  });

  it("no CORS unless configured; another site's Origin is refused, the configured one allowed", async () => {
    const plain = await startServer();
    const simple = await plain.api("/api/sessions", { headers: { origin: "https://evil.example" } });
    expect(simple.headers.get("access-control-allow-origin")).toBeNull();
    expect(await errorOf(simple)).toMatchObject({ status: 403, code: "forbidden_origin" });
    const sameOrigin = await plain.api("/api/sessions", { headers: { origin: plain.url } });
    expect(sameOrigin.status).toBe(200);
    expect(sameOrigin.headers.get("access-control-allow-origin")).toBeNull();

    const withCors = await startServer({ server: { cors: { origins: ["https://app.example"] } } });
    const preflight = await withCors.api("/api/chat", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const allowed = await withCors.api("/api/sessions", { headers: { origin: "https://app.example" } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect((await withCors.api("/api/sessions", { headers: { origin: "https://other.example" } })).status).toBe(403);
  });

  it("a run's stream, written to the socket directly, keeps the headers the middleware set", async () => {
    const withCors = await startServer({ script: [[text("hello")]], server: { cors: { origins: ["https://app.example"] } } });
    const chat = await withCors.api("/api/chat", { json: { message: "hi" }, headers: { origin: "https://app.example" } });
    expect(chat.status).toBe(200);
    expect(chat.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(chat.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(chat.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-arbor-session-id");
    const sessionId = chat.headers.get("x-arbor-session-id");
    const messages = await readSse(chat);
    expect(messages.every((m) => m.event.session_id === sessionId)).toBe(true);
    expect(messages.at(-1)?.event.type).toBe("done");
  });

  it("bodies over the limit are 413, whether declared or sent in chunks", async () => {
    const { api, url } = await startServer({ server: { maxBodyBytes: 1000 } });
    const big = JSON.stringify({ message: "x".repeat(2000) });
    expect(
      await errorOf(await api("/api/chat", { method: "POST", body: big, headers: { "content-type": "application/json" } })),
    ).toMatchObject({
      status: 413,
      code: "payload_too_large",
    });
    const chunked = await raw(url, {
      method: "POST",
      path: "/api/sessions",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: ['{"title":"', "y".repeat(600), "y".repeat(600), '"}'],
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: { code: "payload_too_large" } });
    expect((await api("/api/sessions", { json: { title: "small" } })).status).toBe(201);
  });

  it("unknown routes are 404 in the error format", async () => {
    const { api } = await startServer();
    expect(await errorOf(await api("/api/nope"))).toMatchObject({ status: 404, code: "not_found" });
    expect(await errorOf(await api("/api/health", { method: "DELETE" }))).toMatchObject({ status: 404 });
  });
});
