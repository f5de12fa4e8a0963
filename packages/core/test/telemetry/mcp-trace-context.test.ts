import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createTraceState, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { McpManager } from "../../src/mcp/manager.js";
import { genAiTelemetry } from "../../src/telemetry/gen-ai.js";
import { traceContextOf } from "../../src/telemetry/span-scopes.js";
import { collect, harness } from "../loop/harness.js";
import { sdkHttpServer } from "../mcp/servers.js";

/**
 * What an MCP request sends in `_meta` (SEP-414): the W3C trace context of the span it is made in,
 * so an instrumented server's spans join the run's trace. The server here is the SDK's McpServer
 * over Streamable HTTP on 127.0.0.1, recording the `_meta` of each request it is sent.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

type Seen = Array<{ request: string; meta: Record<string, unknown> | undefined }>;

async function recordingServer(): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = [];
  const { url, close } = await sdkHttpServer(() => {
    const server = new McpServer({ name: "recorder", version: "1.0.0" });
    server.registerTool("note", { description: "Takes a note." }, async (extra) => {
      seen.push({ request: "tools/call", meta: extra._meta });
      return { content: [{ type: "text", text: "noted" }] };
    });
    server.registerResource("readme", "note://readme", { mimeType: "text/plain" }, async (uri, extra) => {
      seen.push({ request: "resources/read", meta: extra._meta });
      return { contents: [{ uri: uri.href, text: "read me" }] };
    });
    server.registerPrompt("greet", { description: "Says hello." }, async (extra) => {
      seen.push({ request: "prompts/get", meta: extra._meta });
      return { messages: [{ role: "user", content: { type: "text", text: "hello" } }] };
    });
    return server;
  });
  cleanups.push(close);
  return { url, seen };
}

function collector() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  cleanups.push(() => provider.shutdown());
  return { exporter, tracer: provider.getTracer("arbor-test") };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe("trace context in MCP requests' _meta", () => {
  it("a traced run's MCP tool call sends the tool span's traceparent beside the call's own _meta", async () => {
    const server = await recordingServer();
    const { exporter, tracer } = collector();
    const model = scriptedModel([[toolCall("mcp__rec__note", {}, { id: "n1" })], [text("Noted.")]]);
    const config = resolveConfig([
      {
        source: "test",
        value: { mcp: { servers: { rec: { url: server.url, timeoutMs: 30_000 } } }, permission: { "mcp__*": "allow" } },
      },
    ]);
    const { runtime } = await harness({ model, config, telemetry: genAiTelemetry(tracer) });
    const { result } = await collect(runtime.runs.run({ prompt: "take a note" }));
    expect(result.status).toBe("done");

    const toolSpan = exporter.getFinishedSpans().find((s) => s.name === "execute_tool mcp__rec__note");
    expect(toolSpan).toBeDefined();
    const calls = server.seen.filter((s) => s.request === "tools/call");
    expect(calls).toHaveLength(1);
    const meta = calls[0]?.meta ?? {};
    const [, traceId, parentId] = TRACEPARENT.exec(String(meta.traceparent)) ?? [];
    // The server's span would be a child of the tool call's span, in the run's trace.
    expect(traceId).toBe(toolSpan?.spanContext().traceId);
    expect(parentId).toBe(toolSpan?.spanContext().spanId);
    // Sampled, as the SDK's default sampler keeps every span.
    expect(String(meta.traceparent).endsWith("-01")).toBe(true);
    expect(meta).not.toHaveProperty("tracestate");
    // The call's idempotency key is still there: the trace context is added to what the call sends.
    expect(meta["arbor/idempotencyKey"]).toEqual(expect.any(String));
  });

  it("an untraced run sends no trace context", async () => {
    const server = await recordingServer();
    const model = scriptedModel([[toolCall("mcp__rec__note", {}, { id: "n1" })], [text("Noted.")]]);
    const config = resolveConfig([
      {
        source: "test",
        value: { mcp: { servers: { rec: { url: server.url, timeoutMs: 30_000 } } }, permission: { "mcp__*": "allow" } },
      },
    ]);
    const { runtime } = await harness({ model, config });
    await collect(runtime.runs.run({ prompt: "take a note" }));
    const meta = server.seen.find((s) => s.request === "tools/call")?.meta ?? {};
    expect(meta).not.toHaveProperty("traceparent");
    expect(meta["arbor/idempotencyKey"]).toEqual(expect.any(String));
  });

  it("a resource read and a prompt carry the current span's traceparent and tracestate", async () => {
    const server = await recordingServer();
    const { exporter, tracer } = collector();
    // A span under a caller's remote context with vendor state, as a host's incoming request would have.
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState("vendor=abc"),
    });
    const span = tracer.startSpan("host request", {}, remote);
    const current = trace.setSpan(remote, span);
    const manager = new McpManager({
      servers: { rec: { url: server.url, timeoutMs: 30_000, enabled: true } },
      toolCacheTtl: 0,
      traceContext: () => traceContextOf(current),
    });
    cleanups.push(() => manager.close());
    await manager.readResource("rec", "note://readme");
    await manager.getPrompt("rec", "greet");
    span.end();

    const [ended] = exporter.getFinishedSpans();
    const expected = {
      traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${ended?.spanContext().spanId}-01`,
      tracestate: "vendor=abc",
    };
    expect(server.seen.map((s) => [s.request, s.meta])).toEqual([
      ["resources/read", expected],
      ["prompts/get", expected],
    ]);
  });
});
