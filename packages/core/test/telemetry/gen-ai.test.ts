import { error, scriptedModel, text, toolCall, usage } from "@arbor/testkit";
import { SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { genAiTelemetry } from "../../src/telemetry/gen-ai.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { branchModels, collect, harness, printTool } from "../loop/harness.js";

const providers: TracerProvider[] = [];
afterEach(async () => {
  for (const p of providers.splice(0)) await p.shutdown();
});

function collector() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  providers.push(provider);
  return { exporter, tracer: provider.getTracer("arbor-test") };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => parentOf(s) === parent.spanContext().spanId);

describe("OpenTelemetry GenAI spans", () => {
  it("traces a run with two explore branches as one nested trace", async () => {
    const main = scriptedModel([
      [toolCall("explore", { branches: ["look at JWT", "look at sessions"] }, { id: "ex1" })],
      [text("JWT wins."), usage({ inputTokens: 50, outputTokens: 5 })],
    ]);
    const jwt = scriptedModel([
      [toolCall("list", {}, { id: "ls1" })],
      [text("JWT: stateless."), usage({ inputTokens: 30, outputTokens: 10 })],
    ]);
    const sessions = scriptedModel([[text("Sessions: need a store.")]]);
    const { exporter, tracer } = collector();
    const { runtime } = await harness({
      model: branchModels(main, { "look at JWT": jwt, "look at sessions": sessions }),
      telemetry: genAiTelemetry(tracer),
    });
    const { result } = await collect(runtime.runs.run({ prompt: "main: pick an auth design" }));
    expect(result.status).toBe("done");

    const spans = exporter.getFinishedSpans();
    // One trace: every span shares the root's trace id.
    const roots = spans.filter((s) => parentOf(s) === undefined);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent build"]);
    const root = roots[0]!;
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([root.spanContext().traceId]));
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "build",
      "gen_ai.conversation.id": result.sessionId,
      "gen_ai.usage.output_tokens": expect.any(Number),
    });
    // Plan mode is on by default for a top-level run: its span holds the loop.
    expect(childrenOf(spans, root).map((s) => s.name)).toEqual(["plan_mode"]);
    const plan = childrenOf(spans, root)[0]!;

    const explore = spans.find((s) => s.name === "execute_tool explore")!;
    expect(parentOf(explore)).toBe(plan.spanContext().spanId);
    expect(explore.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "explore",
      "gen_ai.tool.call.id": "ex1",
      "gen_ai.conversation.id": result.sessionId,
      "arbor.entry.id": expect.any(String),
    });
    // The two branches are siblings under the explore call.
    const branches = childrenOf(spans, explore);
    expect(branches.map((s) => s.name)).toEqual(["invoke_agent explore", "invoke_agent explore"]);
    const branchIds = branches.map((s) => s.attributes["gen_ai.conversation.id"]);
    expect(new Set(branchIds).size).toBe(2);
    for (const b of branches) {
      expect(b.attributes["arbor.parent_conversation.id"]).toBe(result.sessionId);
      expect(String(b.attributes["gen_ai.conversation.id"])).toContain(`${result.sessionId}@explore-`);
    }
    // The JWT branch: two model calls and its list call, all under its agent span.
    const jwtSpan = branches.find((b) => childrenOf(spans, b).some((s) => s.name === "execute_tool list"))!;
    const jwtChildren = childrenOf(spans, jwtSpan);
    expect(jwtChildren.map((s) => s.name).sort()).toEqual(["chat routed", "chat routed", "execute_tool list"].sort());
    const lastChat = jwtChildren
      .filter((s) => s.name.startsWith("chat"))
      // [seconds, nanoseconds]: both, as two calls may fall either side of a second's turn.
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
      .at(-1)!;
    expect(lastChat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 10,
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.conversation.id": jwtSpan.attributes["gen_ai.conversation.id"],
    });
    expect(lastChat.attributes["gen_ai.provider.name"]).toBeTypeOf("string");
    // Content stays out unless asked for.
    expect(spans.some((s) => "gen_ai.input.messages" in s.attributes)).toBe(false);
    // Written entries appear as events on their agent's span, so a trace leads back to the session.
    const entryIds = root.events.filter((e) => e.name === "arbor.entry").map((e) => e.attributes?.["arbor.entry.id"]);
    expect(entryIds.length).toBeGreaterThanOrEqual(3);
    expect(entryIds).toContain(explore.attributes["arbor.entry.id"]);
  });

  it("puts prompts and answers on chat spans only when content capture is on", async () => {
    const { exporter, tracer } = collector();
    const { runtime } = await harness({
      model: scriptedModel([[text("hello there")]]),
      telemetry: genAiTelemetry(tracer, { captureContent: true }),
    });
    const { result } = await collect(runtime.runs.run({ prompt: "say hello" }));
    expect(result.status).toBe("done");
    const chat = exporter.getFinishedSpans().find((s) => s.name.startsWith("chat "))!;
    expect(String(chat.attributes["gen_ai.input.messages"])).toContain("say hello");
    expect(String(chat.attributes["gen_ai.output.messages"])).toContain("hello there");
  });

  it("puts each automatic compaction in a span holding its summary call", async () => {
    const { exporter, tracer } = collector();
    const blobs = new MemoryBlobStore();
    const { runtime, store } = await harness({
      // Every step reports a prompt near the model's limit, so the next step compacts first.
      model: scriptedModel([
        [toolCall("print", { size: 24_000 }, { id: "c1" }), usage({ inputTokens: 9_500, outputTokens: 20 })],
        [text("## Goal\nPrint.\n## Next steps\nSay done."), usage({ inputTokens: 900, outputTokens: 40 })],
        [text("All printed."), usage({ inputTokens: 800, outputTokens: 5 })],
      ]),
      blobs,
      config: { ...resolveConfig([]), models: { "testkit/scripted": { limit: { context: 10_000, output: 1_000 } } } },
      tools: new ToolRegistry({ blobs }).register(printTool),
      telemetry: genAiTelemetry(tracer),
    });
    const handle = runtime.runs.run({ prompt: "print" });
    const { result } = await collect(handle);
    expect(result).toMatchObject({ status: "done", compactions: 1 });
    const spans = exporter.getFinishedSpans();
    const compactions = spans.filter((s) => s.name === "compaction");
    expect(compactions).toHaveLength(1);
    const compaction = compactions[0]!;
    const entry = (await store.getActivePath(handle.sessionId)).find((e) => e.type === "compaction")!;
    expect(compaction.attributes).toMatchObject({ "arbor.entry.id": entry.id, "gen_ai.conversation.id": result.sessionId });
    // The summary's model call is the compaction's child; the run's own calls are not.
    expect(childrenOf(spans, compaction).map((s) => s.name)).toEqual(["chat scripted"]);
    expect(spans.filter((s) => s.name === "chat scripted")).toHaveLength(3);
  });

  it("marks a failed tool call and a failed run as errors", async () => {
    const { exporter, tracer } = collector();
    const { runtime } = await harness({
      model: scriptedModel([[toolCall("read", { path: "missing.txt" }, { id: "r1" })], [error(400)]]),
      telemetry: genAiTelemetry(tracer),
    });
    const { result } = await collect(runtime.runs.run({ prompt: "read it" }));
    expect(result.status).toBe("error");
    const spans = exporter.getFinishedSpans();
    const tool = spans.find((s) => s.name === "execute_tool read")!;
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(tool.attributes["error.type"]).toBeTypeOf("string");
    const agent = spans.find((s) => s.name === "invoke_agent build")!;
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.attributes["error.type"]).toBe(result.error?.code);
  });
});
