import { z } from "zod";
import { GoalTreeSchema } from "../goal/goal-tree.js";
import { EntrySchema, SubagentProjectionSchema, SubagentStatusSchema, ThinkingLevelSchema } from "./entry.js";
import { MessageSchema } from "./message.js";
import { SessionMetaSchema } from "./session.js";

export const RuntimeContextSchema = z.object({
  messages: z.array(MessageSchema),
  /** The entry each message came from, index for index. */
  messageEntryIds: z.array(z.string()),
  thinkingLevel: ThinkingLevelSchema.nullable(),
  model: z.string().nullable(),
  /** The goal tree at the end of the active path (stats counted over it); null when nothing on it planned. */
  goalTree: GoalTreeSchema.nullable(),
});

/** The tools one sub-agent batch ran, summed over its branches. */
export const ToolRuntimeRouteSchema = z.object({
  tool: z.string(),
  calls: z.number(),
  errors: z.number(),
  totalDurationMs: z.number(),
});

/** One sub-agent batch as a client shows it: what it set out to do and each branch's result. */
export const SubagentRuntimeSchema = z.object({
  /** The `subagent_batch` entry; null when only results of the batch are in the tree. */
  batchEntryId: z.string().nullable(),
  mode: z.enum(["explore", "delegate", "plan_step"]).nullable(),
  goalId: z.string().optional(),
  tasks: z.array(z.object({ task: z.string(), subSessionId: z.string().optional() })),
  results: z.array(
    z.object({
      entryId: z.string(),
      subSessionId: z.string(),
      status: SubagentStatusSchema,
      /** How many process events and evidence summaries the result kept (the entry's metadata holds them). */
      processEvents: z.number().int().nonnegative(),
      evidenceSummaries: z.number().int().nonnegative(),
      diagnostics: SubagentProjectionSchema.shape.diagnostics.optional(),
    }),
  ),
});

/**
 * The contract between back end and front end: the whole session tree in one read. `childrenByParentId` lists children in
 * append order; root entries are listed under the key "".
 */
export const SnapshotSchema = z.object({
  session: SessionMetaSchema,
  entries: z.array(EntrySchema),
  activePath: z.array(z.string()),
  childrenByParentId: z.record(z.string(), z.array(z.string())),
  labelsByEntryId: z.record(z.string(), z.string()),
  runtimeContext: RuntimeContextSchema,
  /** Sub-agent batches by batch id (see `subagent_batch` / `subagent_result` entries). */
  subagentRuntimeByBatchId: z.record(z.string(), SubagentRuntimeSchema),
  toolRuntimeRoutesByBatchId: z.record(z.string(), z.array(ToolRuntimeRouteSchema)),
});

export type RuntimeContext = z.infer<typeof RuntimeContextSchema>;
export type Snapshot = z.infer<typeof SnapshotSchema>;
export type SubagentRuntime = z.infer<typeof SubagentRuntimeSchema>;
export type ToolRuntimeRoute = z.infer<typeof ToolRuntimeRouteSchema>;
