import { z } from "zod";
import { TimestampSchema } from "../model/time.js";
import { goalTreeProblems } from "./invariants.js";

/**
 * The goal tree: the plan the agent keeps while it works. It is persisted in `goal` tool results and in `goal.json`, so
 * every shape here is a zod schema. Objects are loose, like the rest of the model: fields written by
 * a newer Arbor survive a round trip through an older one.
 */

export const GoalStatusSchema = z.enum(["pending", "in_progress", "completed", "abandoned"]);
export const GoalTypeSchema = z.enum(["normal", "agent_call"]);

/** What the edge of this goal cost (`GoalStats`). `preview` reads like `glob → read × 2`. */
export const GoalStatsSchema = z.looseObject({
  messageCount: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  totalCost: z.number().nonnegative(),
  preview: z.string().optional(),
});

/** `sub_trace_metadata` values: what the parent keeps of each sub-trace it started. */
export const SubTraceMetadataSchema = z.looseObject({
  task: z.string(),
  status: z.string(),
  summary: z.string().optional(),
  lastMessage: z
    .looseObject({
      role: z.string(),
      description: z.string().optional(),
      /** Cut to 500 characters, so a long sub-trace report does not crowd the plan. */
      content: z.string().nullable().optional(),
      createdAt: z.string().optional(),
    })
    .nullable()
    .optional(),
  stats: z.looseObject({
    messageCount: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative(),
    totalCost: z.number().nonnegative(),
  }),
});

/** Internal ids are "1", "2", …: assigned once from the tree's counter and never reused. */
export const GoalIdSchema = z.string().regex(/^[1-9][0-9]*$/, "expected a goal id: a positive integer as a string");

export const GoalSchema = z.looseObject({
  id: GoalIdSchema,
  parentId: GoalIdSchema.nullable(),
  type: GoalTypeSchema.default("normal"),
  description: z.string().min(1),
  reason: z.string().default(""),
  status: GoalStatusSchema,
  /** What was achieved (completed) or why it was given up (abandoned). */
  summary: z.string().optional(),
  agentCallMode: z.string().optional(),
  subTraceIds: z.array(z.string()).optional(),
  subTraceMetadata: z.record(z.string(), SubTraceMetadataSchema).optional(),
  /** Its own messages only. */
  selfStats: GoalStatsSchema,
  /** Its own messages, its descendants' and the sub-traces it started. */
  cumulativeStats: GoalStatsSchema,
  createdAt: TimestampSchema,
  /** When the status or summary last changed; stats updates leave it alone. */
  updatedAt: TimestampSchema,
});

/**
 * Goals are flat; `parentId` builds the hierarchy and the order of the array is the order of
 * siblings. The refinement rejects trees no sequence of `goal` calls can produce, so a hand-edited
 * or corrupted `goal.json` fails at the boundary rather than deep inside a command.
 */
export const GoalTreeSchema = z
  .looseObject({
    mission: z.string(),
    currentId: GoalIdSchema.nullable(),
    goals: z.array(GoalSchema),
    /** The id the next added goal gets; it only grows, so ids of abandoned goals are never reused. */
    nextId: z.number().int().positive(),
  })
  .superRefine((tree, ctx) => {
    for (const message of goalTreeProblems(tree)) ctx.addIssue({ code: "custom", message });
  });

export type GoalStatus = z.infer<typeof GoalStatusSchema>;
export type GoalType = z.infer<typeof GoalTypeSchema>;
export type GoalStats = z.infer<typeof GoalStatsSchema>;
export type SubTraceMetadata = z.infer<typeof SubTraceMetadataSchema>;
export type Goal = z.infer<typeof GoalSchema>;
export type GoalTree = z.infer<typeof GoalTreeSchema>;

export function emptyGoalStats(): GoalStats {
  return { messageCount: 0, totalTokens: 0, totalCost: 0 };
}

/** A plan with no goals yet; `mission` is the task as the user gave it. */
export function createGoalTree(mission: string): GoalTree {
  return { mission, currentId: null, goals: [], nextId: 1 };
}
