import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { text, toolCall, usage } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";

/** What an OTLP/HTTP JSON export holds of each span. */
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface OtlpRequest {
  resourceSpans: {
    resource: { attributes: OtlpRequest["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** A collector's trace endpoint: keeps each POST to /v1/traces it is sent. */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  requests: { path: string; type: string; body: OtlpRequest }[];
}> {
  const requests: { path: string; type: string; body: OtlpRequest }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({
        path: req.url ?? "",
        type: String(req.headers["content-type"]),
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpRequest,
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;

const e2e = setupCliE2e("arbor-otlp-e2e-");

describe("arbor run with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports the run's GenAI spans over OTLP/HTTP to the collector", async () => {
    const fake = await e2e.startFake({
      script: [[toolCall("list", {}, { id: "call_ls" })], [text("Nothing much."), usage({ inputTokens: 12, outputTokens: 3 })]],
    });
    const receiver = await startReceiver();
    try {
      const r = await e2e.arbor(e2e.runArgs(fake.baseURL, "what is here?"), {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "arbor-test", PLAN_ENABLED: "false" },
      });
      expect(r.code, r.stderr).toBe(0);
      const sessionId = (JSON.parse(r.stdout.trimEnd().split("\n")[0]!) as { session_id: string }).session_id;

      expect(receiver.requests.length).toBeGreaterThan(0);
      for (const req of receiver.requests) {
        expect(req.path).toBe("/v1/traces");
        expect(req.type).toContain("application/json");
      }
      const resources = receiver.requests.flatMap((q) => q.body.resourceSpans);
      expect(resources[0]!.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "arbor-test" } });
      const spans = resources.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans));
      const names = spans.map((s) => s.name).sort();
      expect(names).toEqual(["chat fake", "chat fake", "execute_tool list", "invoke_agent build"].sort());
      const agent = spans.find((s) => s.name === "invoke_agent build")!;
      expect(attr(agent, "gen_ai.conversation.id")).toEqual({ stringValue: sessionId });
      for (const s of spans) {
        expect(s.traceId).toBe(agent.traceId);
        if (s !== agent) expect(s.parentSpanId).toBe(agent.spanId);
      }
      const tool = spans.find((s) => s.name === "execute_tool list")!;
      expect(attr(tool, "gen_ai.tool.call.id")).toEqual({ stringValue: "call_ls" });
      const chats = spans.filter((s) => s.name === "chat fake");
      expect(chats.map((c) => attr(c, "gen_ai.usage.output_tokens"))).toContainEqual({ intValue: 3 });
    } finally {
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });
});
