import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Entry } from "../../src/model/entry.js";
import type { Message } from "../../src/model/message.js";
import { defineTool } from "../../src/tools/tool.js";
import { BEDROCK_SIGNATURE, type ConverseBody, expectSentToolTurn, expectStoredToolTurn } from "../helpers/bedrock-turn.js";
import { collect } from "../loop/harness.js";
import { replay } from "./recorded-servers.js";

/** The tool the recorded Bedrock turn calls. */
const testTool = defineTool({
  name: "test-tool",
  description: "Echoes a value.",
  input: z.object({ value: z.string() }),
  async execute({ value }) {
    return { output: `got ${value}` };
  },
});

function assistants(path: Entry[]): Message[] {
  return path.flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
}

describe("recorded Bedrock Converse streams through the runtime", () => {
  it("keeps signed reasoning and a tool call from the binary event stream, and sends both back", async () => {
    const model = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const { server, runtime, store } = await replay(
      model,
      "bedrock-converse",
      ["bedrock/bedrock-reasoning-tool-call.derived.chunks.txt", "bedrock/bedrock-reasoning.chunks.txt"],
      { tools: [testTool], env: { AWS_REGION: "us-east-1" } },
    );
    const { result } = await collect(
      runtime.runs.run({ prompt: "Call the tool, then count the r's in strawberry.", thinking: 4096 }),
    );
    expect(result).toMatchObject({ status: "done", steps: 2 });
    expect(result.text).toContain("**3** r's");

    expect(server.requests.map((r) => r.path)).toEqual(
      Array(2).fill(`/model/${encodeURIComponent("us.anthropic.claude-sonnet-4-5-20250929-v1:0")}/converse-stream`),
    );
    expect(server.requests[0]?.headers.authorization).toBe("Bearer test-key");
    // A token budget reaches Bedrock as the Anthropic thinking budget it carries through.
    const first = server.requests[0]?.body as ConverseBody;
    expect(first.additionalModelRequestFields).toMatchObject({ thinking: { type: "enabled", budget_tokens: 4096 } });

    const [call, answer] = assistants(await store.getActivePath(result.sessionId));
    expectStoredToolTurn(call);
    expect(answer?.content.find((p) => p.type === "reasoning")).toMatchObject({
      providerMetadata: { bedrock: { signature: expect.stringMatching(BEDROCK_SIGNATURE) } },
    });

    // The tool loop's next request carries the signed reasoning, the call and its result.
    const second = server.requests[1]?.body as ConverseBody;
    expectSentToolTurn(second);
    const results = second.messages.flatMap((m) => m.content).filter((p) => "toolResult" in p);
    expect(results).toEqual([
      expect.objectContaining({
        toolResult: expect.objectContaining({
          toolUseId: "tool-use-id",
          content: [{ text: expect.stringContaining("got Sparkle Day") }],
        }),
      }),
    ]);
  });

  it("keeps a non-Anthropic model's unsigned reasoning and its tool call with the id Bedrock gave it", async () => {
    const { server, runtime, store } = await replay(
      "bedrock/moonshot.kimi-k2-thinking",
      "bedrock-converse",
      ["bedrock/issue-11409-kimi-k2-thinking-glob-search.chunks.txt", "bedrock/issue-17523-converse-stream.chunks.txt"],
      { env: { AWS_REGION: "us-east-1" } },
    );
    const { result } = await collect(runtime.runs.run({ prompt: "Find the cursor file." }));
    expect(result).toMatchObject({ status: "done", steps: 2 });
    const [call] = assistants(await store.getActivePath(result.sessionId));
    expect(call?.content.find((p) => p.type === "reasoning")).toMatchObject({ text: expect.stringContaining("glob_search") });
    expect(call?.content.find((p) => p.type === "tool-call")).toMatchObject({
      toolName: "glob_search",
      input: { pattern: "**/*cursor*" },
    });
    const second = server.requests[1]?.body as ConverseBody;
    const toolUse = second.messages.flatMap((m) => m.content).find((p) => "toolUse" in p) as
      | { toolUse: { toolUseId: string } }
      | undefined;
    const toolResult = second.messages.flatMap((m) => m.content).find((p) => "toolResult" in p) as
      | { toolResult: { toolUseId: string } }
      | undefined;
    expect(toolUse?.toolUse.toolUseId).toBe("functions.glob_search:0");
    expect(toolResult?.toolResult.toolUseId).toBe(toolUse?.toolUse.toolUseId);
  });
});
