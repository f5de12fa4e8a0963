import { z } from "zod";

/**
 * The Agent Trajectory Interchange Format (ATIF v1.4), the trajectory format of the Harbor
 * benchmark runner. Objects are strict because Harbor's own models forbid unknown fields:
 * anything extra belongs in the `extra` objects the format provides.
 */
export const ATIF_SCHEMA_VERSION = "ATIF-v1.4";

const Extra = z.record(z.string(), z.unknown());

export const AtifToolCallSchema = z.strictObject({
  tool_call_id: z.string().min(1),
  function_name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});

export const AtifSubagentRefSchema = z.strictObject({
  session_id: z.string().min(1),
  trajectory_path: z.string().optional(),
  extra: Extra.optional(),
});

export const AtifObservationResultSchema = z.strictObject({
  source_call_id: z.string().nullable().optional(),
  content: z.string().nullable().optional(),
  subagent_trajectory_ref: z.array(AtifSubagentRefSchema).nullable().optional(),
});

export const AtifMetricsSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
  cached_tokens: z.number().int().nonnegative().optional(),
  cost_usd: z.number().nonnegative().optional(),
  extra: Extra.optional(),
});

export const AtifStepSchema = z
  .strictObject({
    step_id: z.number().int().positive(),
    timestamp: z.string().optional(),
    source: z.enum(["system", "user", "agent"]),
    model_name: z.string().optional(),
    reasoning_effort: z.union([z.string(), z.number()]).optional(),
    message: z.string(),
    reasoning_content: z.string().optional(),
    tool_calls: z.array(AtifToolCallSchema).optional(),
    observation: z.strictObject({ results: z.array(AtifObservationResultSchema) }).optional(),
    metrics: AtifMetricsSchema.optional(),
    extra: Extra.optional(),
  })
  .refine((s) => s.source === "agent" || (s.tool_calls === undefined && s.metrics === undefined && s.model_name === undefined), {
    message: "only agent steps carry tool_calls, metrics and model_name",
  });

export const AtifTrajectorySchema = z
  .strictObject({
    schema_version: z.literal(ATIF_SCHEMA_VERSION),
    session_id: z.string().min(1),
    agent: z.strictObject({
      name: z.string().min(1),
      version: z.string().min(1),
      model_name: z.string().optional(),
      extra: Extra.optional(),
    }),
    steps: z.array(AtifStepSchema),
    notes: z.string().optional(),
    final_metrics: z
      .strictObject({
        total_prompt_tokens: z.number().int().nonnegative().optional(),
        total_completion_tokens: z.number().int().nonnegative().optional(),
        total_cached_tokens: z.number().int().nonnegative().optional(),
        total_cost_usd: z.number().nonnegative().optional(),
        total_steps: z.number().int().nonnegative().optional(),
        extra: Extra.optional(),
      })
      .optional(),
    extra: Extra.optional(),
  })
  .refine((t) => t.steps.every((s, i) => s.step_id === i + 1), { message: "step_id must count 1, 2, 3, … in order" });

export type AtifTrajectory = z.infer<typeof AtifTrajectorySchema>;
export type AtifStep = z.infer<typeof AtifStepSchema>;
