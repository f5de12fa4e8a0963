import { error, type StepContext, startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../src/config/resolve.js";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/context/summary-prompt.js";
import { TokenCounter } from "../../src/context/token-counter.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";
import { collect, harness } from "./harness.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

interface ChatBody {
  messages: Array<{ role: string; content: unknown; tool_calls?: unknown }>;
  tools?: unknown;
}

describe("a run far longer than the model's window, over HTTP", () => {
  it("completes with compactions in the session tree and no provider overflow", async () => {
    const counter = new TokenCounter();
    await counter.load();
    const CONTEXT = 8_000;
    const STEPS = 40;
    /** The provider's own count of a request, as a window-enforcing server would make it. */
    const promptTokens = (body: ChatBody) =>
      body.messages.reduce(
        (n, m) => n + 4 + counter.text(JSON.stringify(m.content ?? "") + JSON.stringify(m.tool_calls ?? "")),
        3,
      ) + counter.text(JSON.stringify(body.tools ?? ""));
    let refused = 0;
    let mainCalls = 0;
    let summaries = 0;
    const step = (call: StepContext) => {
      const body = (call as { body: ChatBody }).body;
      const tokens = promptTokens(body);
      if (tokens > CONTEXT - 1_000) {
        refused++;
        return [
          error(400, {
            message: `This model's maximum context length is ${CONTEXT} tokens. However, your messages resulted in ${tokens} tokens.`,
            code: "context_length_exceeded",
          }),
        ];
      }
      if (body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT) {
        summaries++;
        return [
          text(`## Goal\nPrint ${STEPS} pages.\n## Progress\n### Done\nSummary ${summaries}.\n## Next steps\nKeep printing.`),
          usage({ inputTokens: tokens, outputTokens: 40 }),
        ];
      }
      mainCalls++;
      if (mainCalls > STEPS) return [text("All pages printed."), usage({ inputTokens: tokens, outputTokens: 5 })];
      return [toolCall("page", { n: mainCalls }, { id: `call_${mainCalls}` }), usage({ inputTokens: tokens, outputTokens: 20 })];
    };
    const server = await startFakeOpenAI({ script: Array.from({ length: 200 }, () => step) });
    servers.push(server);

    const page = defineTool({
      name: "page",
      description: "Prints one page of a long document.",
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => ({
        output: `page ${n}\n${Array.from({ length: 600 }, (_, i) => `w${(i * 7919 + n) % 1000}`).join(" ")}`,
      }),
    });
    const blobs = new MemoryBlobStore();
    const config = resolveConfig([
      {
        source: "test",
        value: { baseURL: server.url, models: { "openai-compatible/fake": { limit: { context: CONTEXT, output: 1_000 } } } },
      },
    ]);
    const { runtime, store } = await harness({
      config,
      model: "openai-compatible/fake",
      blobs,
      tools: new ToolRegistry({ blobs }).register(page),
    });
    const handle = runtime.runs.run({ prompt: `Print pages 1 to ${STEPS}.`, maxTurns: 100 });
    const { result } = await collect(handle);

    expect(result).toMatchObject({ status: "done", text: "All pages printed.", steps: STEPS + 1 });
    expect(refused).toBe(0);
    // Each page is ~1,500 tokens: 40 of them are 7× the window.
    expect(result.compactions).toBeGreaterThanOrEqual(5);
    expect(summaries).toBe(result.compactions);

    const snapshot = await store.getSnapshot(handle.sessionId);
    const onPath = snapshot.activePath.map((id) => snapshot.entries.find((e) => e.id === id)!);
    const compactions = onPath.filter((e) => e.type === "compaction");
    expect(compactions).toHaveLength(result.compactions ?? -1);
    for (const c of compactions) expect(c.type === "compaction" && c.summary).toContain("## Goal");
    // Every page's tool call and result is on the path, and the last prompt held the latest page verbatim.
    expect(onPath.filter((e) => e.type === "message" && e.message.role === "tool")).toHaveLength(STEPS);
    const last = server.requests.at(-1)?.body as ChatBody;
    expect(JSON.stringify(last.messages)).toContain(`page ${STEPS}`);
    expect(promptTokens(last)).toBeLessThanOrEqual(CONTEXT - 1_000);
  });
});
