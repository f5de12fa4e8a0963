import type { MessageEntry } from "@arbor/core";
import { z } from "zod";

/**
 * Seed 000's `Message` record, as `GET /api/traces/:id/messages` sends it: an LLM message with the
 * trace's own metadata under the seed's names. `content` is the message's parts as the model API
 * layer holds them (text, reasoning, tool calls, tool results).
 */
export const GoalMessageWire = z.object({
  message_id: z.string(),
  trace_id: z.string(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  sequence: z.number().int().positive().describe("1-based order among the trace's messages on its active path."),
  goal_id: z.string().nullable().describe("The goal it was written under; null before the plan had one."),
  tool_call_id: z.string().nullable().describe("A tool message's call; null for others."),
  content: z.array(z.record(z.string(), z.unknown())),
  description: z.string(),
  tokens: z.number().int().nonnegative().nullable().describe("Input plus output tokens of an assistant message's call."),
  cost: z.number().nonnegative().nullable().describe("Dollars; null when unknown (not priced, or not a model call)."),
  duration_ms: z.number().int().nonnegative().nullable(),
  created_at: z.string(),
});
export const GoalMessagesResponse = z.object({ messages: z.array(GoalMessageWire) });

/** The seed's record of one message entry; `sequence` is its place among the trace's messages. */
export function goalMessageToWire(entry: MessageEntry, traceId: string, sequence: number): z.output<typeof GoalMessageWire> {
  const m = entry.message;
  const toolCallId = m.role === "tool" ? (m.content[0]?.toolCallId ?? null) : null;
  return {
    message_id: entry.id,
    trace_id: traceId,
    role: m.role,
    sequence,
    goal_id: m.goalId ?? null,
    tool_call_id: toolCallId,
    content: m.content as unknown as Array<Record<string, unknown>>,
    description: m.description ?? describe(entry),
    tokens: m.tokens ? m.tokens.input + m.tokens.output : null,
    cost: m.cost ?? null,
    duration_ms: m.durationMs ?? null,
    created_at: entry.timestamp,
  };
}

/** The seed's generated description: an assistant's text, else "tool call: a, b"; a tool message's tool name. */
function describe(entry: MessageEntry): string {
  const m = entry.message;
  switch (m.role) {
    case "tool":
      return m.content.map((p) => p.toolName).join(", ");
    case "assistant": {
      const text = m.content
        .filter((p) => p.type === "text")
        .map((p) => p.text)
        .join("")
        .trim();
      if (text !== "") return text.slice(0, 200);
      const calls = m.content.filter((p) => p.type === "tool-call").map((p) => p.toolName);
      return calls.length > 0 ? `tool call: ${calls.join(", ")}` : "";
    }
    case "user":
    case "system":
      return m.content
        .map((p) => (p.type === "text" ? p.text : ""))
        .join("")
        .trim()
        .slice(0, 200);
  }
}
