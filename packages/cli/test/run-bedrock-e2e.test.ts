import { recordedStream } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import {
  type ConverseBody,
  expectSentToolTurn,
  expectStoredToolTurn,
  sentAssistantParts,
} from "../../core/test/helpers/bedrock-turn.js";
import { assistantsOf, bodyOf, recordedRuns, thinkingLevelsOf } from "./helpers/recorded-run.js";

/**
 * End to end on Amazon Bedrock: the built `arbor run` against Converse streams replayed in AWS
 * event-stream binary framing, then `arbor run --session`. The signed reasoning Bedrock streamed
 * must be stored and go back on every later request, with the tool call and its result. The
 * recorded turn calls a tool `arbor run` does not have, so its result is an "unknown tool" error.
 */

const { serve, run, snapshot } = recordedRuns();
const MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

describe("arbor run on recorded Bedrock Converse streams", () => {
  it("runs a tool loop with a thinking budget, continues it, and sends the signed reasoning back", async () => {
    const server = await serve("bedrock-converse", [
      recordedStream("bedrock/bedrock-reasoning-tool-call.derived.chunks.txt"),
      recordedStream("bedrock/bedrock-reasoning.chunks.txt"),
      recordedStream("bedrock/issue-17523-converse-stream.chunks.txt"),
    ]);
    const env = {
      AWS_BEARER_TOKEN_BEDROCK: "test-key",
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.baseURL,
      AWS_REGION: "us-east-1",
    };
    const model = `bedrock/${MODEL_ID}`;
    const id = await run(model, env, "--thinking", "4096", "Call the tool, then count the r's in strawberry.");
    expect(server.callCount).toBe(2);
    expect(await run(model, env, "--session", id, "Say hello.")).toBe(id);
    expect(server.callCount).toBe(3);

    expect(server.requests.map((r) => r.path)).toEqual(Array(3).fill(`/model/${encodeURIComponent(MODEL_ID)}/converse-stream`));
    for (const request of server.requests) expect(request.headers.authorization).toBe("Bearer test-key");
    // The budget reaches every request, the continued session's too, without being given again.
    for (const call of [0, 1, 2]) {
      expect(bodyOf<ConverseBody>(server, call).additionalModelRequestFields).toMatchObject({
        thinking: { type: "enabled", budget_tokens: 4096 },
      });
    }

    const snap = await snapshot(id);
    expect(thinkingLevelsOf(snap)).toEqual([4096]);
    const [call, answer, last] = assistantsOf(snap);
    expectStoredToolTurn(call);
    expect(answer?.content.find((p) => p.type === "text")).toMatchObject({ text: expect.stringContaining("**3** r's") });
    expect(last?.content).toEqual([expect.objectContaining({ type: "text", text: "Hello! How can I assist you today? If" })]);
    // A Bedrock model has no catalog price: the turns are not called free.
    expect(assistantsOf(snap).every((m) => m.tokens !== undefined && m.cost === undefined)).toBe(true);

    // Each later request carries the signed reasoning first in its turn, the call and its result.
    for (const call of [1, 2]) {
      const body = bodyOf<ConverseBody>(server, call);
      expectSentToolTurn(body);
      const results = body.messages.flatMap((m) => m.content).filter((p) => "toolResult" in p);
      expect(results).toEqual([expect.objectContaining({ toolResult: expect.objectContaining({ toolUseId: "tool-use-id" }) })]);
    }
    // The continued session also sends back the second turn's signed reasoning.
    const signed = sentAssistantParts(bodyOf<ConverseBody>(server, 2)).filter((p) => "reasoningContent" in p);
    expect(signed).toHaveLength(2);
  });
});
