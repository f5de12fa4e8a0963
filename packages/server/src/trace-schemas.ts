import { EntrySchema } from "@arbor/core";
import { TraceModeSchema, TraceStatusSchema } from "@arbor/core/wire";
import { z } from "zod";
import { EntryId, SessionId } from "./id-schemas.js";

/**
 * The trace routes, under the trace model's own field names (`trace_id`, `parent_trace_id`,
 * `self_stats`, `message_count`, …) rather than core's camelCase session metadata.
 */

export const TraceParams = z.object({ id: SessionId });

const GoalStatsWire = z.looseObject({
  message_count: z.number(),
  total_tokens: z.number(),
  total_cost: z.number(),
  preview: z.string().optional(),
});

export const GoalWireSchema = z.looseObject({
  id: z.string(),
  parent_id: z.string().nullable(),
  type: z.string(),
  description: z.string(),
  reason: z.string(),
  status: z.string(),
  summary: z.string().optional(),
  agent_call_mode: z.string().optional(),
  sub_trace_ids: z.array(z.string()).optional(),
  sub_trace_metadata: z.record(z.string(), z.looseObject({ task: z.string(), status: z.string() })).optional(),
  self_stats: GoalStatsWire,
  cumulative_stats: GoalStatsWire,
  created_at: z.string(),
  updated_at: z.string(),
});

export const GoalTreeWireSchema = z.looseObject({
  mission: z.string(),
  current_id: z.string().nullable(),
  goals: z.array(GoalWireSchema),
  next_id: z.number(),
});

/** A trace's limits and tool choices under the trace model's snake_case names (`allowed_tools`, `max_turns`, …). */
export const TraceContextWire = z.looseObject({
  allowed_tools: z.array(z.string()).optional(),
  denied_tools: z.array(z.string()).optional(),
  max_turns: z.number().optional(),
  timeout: z.number().optional(),
  max_tokens: z.number().optional(),
  max_tool_calls: z.number().optional(),
  max_concurrent_sub_traces: z.number().optional(),
  caller_permission: z.array(z.looseObject({ permission: z.string(), pattern: z.string(), action: z.string() })).optional(),
});

export const TraceWireSchema = z.object({
  trace_id: z.string(),
  mode: TraceModeSchema,
  agent_type: z.string(),
  task: z.string().optional(),
  title: z.string().optional(),
  cwd: z.string().optional(),
  parent_trace_id: z.string().optional(),
  parent_goal_id: z.string().optional(),
  context: TraceContextWire.optional(),
  status: TraceStatusSchema.optional(),
  total_messages: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  total_cost: z.number().nonnegative(),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: z.string().optional(),
});

export const TraceResponse = TraceWireSchema.extend({
  goal_tree: GoalTreeWireSchema.nullable().describe("The plan at the trace's leaf; null when it has none."),
  sub_traces: z
    .record(z.string(), TraceWireSchema)
    .describe("The sub-traces this trace started, keyed by trace id, oldest first (the keys' order)."),
});

export const GoalMessagesQuery = z.object({
  goal_id: z
    .string()
    .regex(/^[1-9][0-9]*(\.[1-9][0-9]*)*$/, 'goal_id is a goal\'s internal id ("2") or its number in the plan as shown ("2.1")')
    .optional()
    .describe(
      "A goal: its internal id (`2`), or its number in the plan as the model sees it (`2.1`; a number with a dot is always read as one). Without it, every message on the active path.",
    ),
  descendants: z
    .enum(["true", "false"])
    .optional()
    .describe("`true` adds the messages of the goal's subgoals (a collapsed edge)."),
  format: z
    .enum(["seed", "entries"])
    .optional()
    .describe("`seed` (default): seed 000's message records; `entries`: the session's message entries as stored."),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe("With format=entries: only the first this many messages, and `total` says how many there are."),
});

export const GoalEntriesResponse = z.object({
  messages: z.array(EntrySchema),
  total: z.number().int().nonnegative().optional().describe("With `limit`: how many messages the goal has in all."),
});

export const ReplayRequest = z.strictObject({
  from_message_id: EntryId.describe("The assistant message that made the goal call."),
  modified_tool_call: z.strictObject({
    tool_call_id: z.string().min(1).max(200),
    new_arguments: z
      .record(z.string(), z.unknown())
      .describe("The goal call's new arguments (add, reason, after, under, done, abandon, focus)."),
  }),
  agent: z.string().min(1).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
});
