import type { MessageInput } from "../../src/store/store.js";

/**
 * Messages as a run's journal holds them, for tests that write by hand what a process killed
 * mid-run leaves (then resume it).
 */

export const userMessage = (text: string): MessageInput => ({ role: "user", content: [{ type: "text", text }] });

const TOKENS = { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 };

/** A recorded model answer; every step a run records carries its call's duration, which is how its steps are counted. */
export const answerMessage = (
  content: MessageInput["content"],
  finishReason: "tool-calls" | "stop" = "tool-calls",
): MessageInput => ({ role: "assistant", content, model: "testkit/scripted", finishReason, tokens: TOKENS, durationMs: 5 });

export const toolCallPart = (id: string, name: string, input: unknown) => ({
  type: "tool-call" as const,
  toolCallId: id,
  toolName: name,
  input,
});

export const toolResultMessage = (id: string, name: string, value: string): MessageInput => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: id, toolName: name, output: { type: "text", value } }],
});
