import { expect } from "vitest";

/**
 * What the recorded Bedrock turn (`bedrock/bedrock-reasoning-tool-call.derived.chunks.txt`) holds,
 * checked alike by the runtime's replay test and the CLI's end-to-end one: signed reasoning, then a
 * call of `test-tool`.
 */

/** The start of the signature Bedrock gave the recorded turn's reasoning. */
export const BEDROCK_SIGNATURE = /^Ep0CCkgICxABGAIqQOWPB6/;

/** A Converse request body, as far as the tests read it. */
export type ConverseBody = {
  additionalModelRequestFields?: Record<string, unknown>;
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
};

/** The assistant content a request sends back, in order. */
export function sentAssistantParts(body: ConverseBody): Array<Record<string, unknown>> {
  return body.messages.filter((m) => m.role === "assistant").flatMap((m) => m.content);
}

/** The recorded turn as stored: its signed reasoning, its tool call, and its tokens. */
export function expectStoredToolTurn(call: { content: Array<{ type: string }>; tokens?: unknown } | undefined): void {
  expect(call?.content.find((p) => p.type === "reasoning")).toMatchObject({
    text: expect.stringContaining("3 r's"),
    providerMetadata: { bedrock: { signature: expect.stringMatching(BEDROCK_SIGNATURE) } },
  });
  expect(call?.content.find((p) => p.type === "tool-call")).toMatchObject({
    toolCallId: "tool-use-id",
    toolName: "test-tool",
    input: { value: "Sparkle Day" },
  });
  expect(call?.tokens).toMatchObject({ input: 125, output: 45 });
}

/** The recorded turn as a later request sends it back: the signed reasoning first, and the tool call. */
export function expectSentToolTurn(body: ConverseBody): void {
  const sent = sentAssistantParts(body);
  expect(sent[0]).toMatchObject({
    reasoningContent: {
      reasoningText: { text: expect.stringContaining("3 r's"), signature: expect.stringMatching(BEDROCK_SIGNATURE) },
    },
  });
  expect(sent.find((p) => "toolUse" in p)).toMatchObject({
    toolUse: { toolUseId: "tool-use-id", name: "test-tool", input: { value: "Sparkle Day" } },
  });
}
