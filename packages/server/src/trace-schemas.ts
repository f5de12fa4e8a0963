import { EntrySchema, GoalTreeSchema, SessionMetaSchema } from "@arbor/core/internal";
import { z } from "zod";
import { EntryId, SessionId } from "./id-schemas.js";

/** The trace routes. The trace meta and goal tree keep core's camelCase, like session metadata. */

export const TraceParams = z.object({ id: SessionId });

export const TraceResponse = z.object({
  trace: SessionMetaSchema,
  goal_tree: GoalTreeSchema.nullable().describe("The plan at the trace's leaf; null when it has none."),
  sub_traces: z.array(SessionMetaSchema).describe("The sub-traces this trace started, oldest first."),
});

export const GoalMessagesQuery = z.object({
  goal_id: z
    .string()
    .regex(/^[1-9][0-9]*$/, "goal_id is a goal's internal id (a positive integer), not its display number")
    .optional()
    .describe("A goal's internal id; without it, every message on the active path."),
  descendants: z
    .enum(["true", "false"])
    .optional()
    .describe("`true` adds the messages of the goal's subgoals (a collapsed edge)."),
});

export const GoalMessagesResponse = z.object({ messages: z.array(EntrySchema) });

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
