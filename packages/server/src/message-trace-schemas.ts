import { parseTraceTime } from "@arbor/core/trace";
import { z } from "zod";
import { EntryId, SessionId } from "./id-schemas.js";

/**
 * The message trace on the wire, field names exactly as trace clients read them. `wire.ts` maps
 * core's trace (camelCase) to these.
 */

const TraceTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/)
  .describe(
    "RFC 3339 UTC with nanoseconds: the entry's millisecond, then its rank among the entries with the same millisecond before it on the path, so it is unique on the path and never changes.",
  );

export const ToolResultWire = z.object({
  success: z.boolean(),
  output: z.string().describe("Human-readable output (a JSON result as JSON text)."),
  data: z.record(z.string(), z.unknown()).optional().describe("Machine-readable data: the tool's metadata."),
  error: z.string().optional().describe("Present exactly when success is false."),
});

export const ToolCallWire = z.object({
  id: z.string().describe("The provider's tool call id."),
  name: z.string(),
  args: z.unknown().describe("The arguments the model gave (normally an object)."),
  result: ToolResultWire.nullable().describe("Null while the call has no result (running, or the run stopped first)."),
  reflection: z.string().optional(),
  duration: z.number().int().nonnegative().describe("Milliseconds the tool ran; 0 without a result."),
});

export const AgentStepWire = z.object({
  iteration: z.number().int().nonnegative().describe("0-based model call number within the answer."),
  entry_id: z.string().describe("The step's assistant entry, whose tokens and cost the session snapshot holds."),
  thought: z.string().describe("The step's reasoning, and its text when it went on to call tools."),
  tool_calls: z.array(ToolCallWire),
  timestamp: TraceTime,
});

export const TraceMessageWire = z.object({
  id: z.string().describe("The user message's entry id, or the answer's first assistant entry id."),
  session_id: z.string(),
  request_id: z.string().describe("The user message's entry id: the question and its answer share it."),
  content: z.string().describe("The user's text, or the final answer (empty until the answer is completed)."),
  role: z.enum(["user", "assistant"]),
  knowledge_references: z
    .array(z.unknown())
    .describe(
      "The knowledge-base passages the answer's search_knowledge_base calls returned: {source, location, score, excerpt}.",
    ),
  agent_steps: z.array(AgentStepWire).describe("One per model call of an answer; empty for a user message."),
  is_completed: z.boolean().describe("False while the answer's last step still has tool calls."),
  deleted: z
    .literal(true)
    .optional()
    .describe(
      "The message was deleted and its content erased (a tombstone, seen on a branch other than the one it was deleted on).",
    ),
  created_at: TraceTime,
  updated_at: TraceTime,
});

export const MessagePageResponse = z.object({
  messages: z.array(TraceMessageWire).describe("Newest first."),
  next_cursor: TraceTime.optional().describe("Pass as `before` for the next page; absent on the last page."),
});

export const ToolStatsWire = z.object({
  name: z.string(),
  count: z.number().int().nonnegative().describe("Calls with a result."),
  failures: z.number().int().nonnegative(),
  p50_ms: z.number().nonnegative(),
  p95_ms: z.number().nonnegative(),
  max_ms: z.number().nonnegative(),
  total_ms: z.number().nonnegative(),
});

export const ToolStatsResponse = z.object({ tools: z.array(ToolStatsWire).describe("By tool name.") });

export const FoundToolCallWire = z.object({
  message_id: z.string(),
  request_id: z.string(),
  iteration: z.number().int().nonnegative(),
  timestamp: TraceTime,
  tool_call: ToolCallWire,
});

export const ToolCallListResponse = z.object({ tool_calls: z.array(FoundToolCallWire).describe("Oldest first.") });

// Parameters.

export const MessageParams = z.object({ id: SessionId, message_id: EntryId });

export const MessagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50).describe("Page size, 1-1000 (default 50)."),
  before: z
    .string()
    .max(64)
    .refine((v) => parseTraceTime(v) !== undefined, "before must be an RFC 3339 timestamp, e.g. 2026-01-01T10:00:00.123000001Z")
    .optional()
    .describe("Only messages created strictly before this RFC 3339 time: the previous page's `next_cursor`."),
});

export const ToolCallsQuery = z.object({
  failed: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .describe("true: only failed calls; false: only successful ones; absent: all (pending ones too)."),
  tool: z.string().min(1).max(200).optional().describe("Only calls of this tool."),
});
