import { z } from "zod";

/**
 * The Agent Trajectory Interchange Format (ATIF v1.7), the trajectory format of the Harbor benchmark
 * runner (its RFC 0001). Objects are strict because Harbor's own models forbid unknown fields:
 * anything extra belongs in the `extra` objects the format provides. Since 1.7 a trajectory may
 * embed the trajectories of the sub-agents it delegated to (`subagent_trajectories`), each named by
 * a `trajectory_id` that references point at.
 */
export const ATIF_SCHEMA_VERSION = "ATIF-v1.7";

const Extra = z.record(z.string(), z.unknown());

/** Text, or an image kept as a file or at a URL (multimodal messages and observations, since 1.6). */
export const AtifContentPartSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text: z.string() }),
  z.strictObject({
    type: z.literal("image"),
    source: z.strictObject({
      media_type: z.enum(["image/jpeg", "image/png", "image/gif", "image/webp"]),
      path: z.string().min(1),
    }),
  }),
]);
const Content = z.union([z.string(), z.array(AtifContentPartSchema)]);

export const AtifToolCallSchema = z.strictObject({
  tool_call_id: z.string().min(1),
  function_name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  extra: Extra.optional(),
});

/** A delegated sub-agent's trajectory: embedded (`trajectory_id`) or in a file (`trajectory_path`); a session id alone is no key. */
export const AtifSubagentRefSchema = z
  .strictObject({
    trajectory_id: z.string().min(1).optional(),
    session_id: z.string().min(1).optional(),
    trajectory_path: z.string().min(1).optional(),
    extra: Extra.optional(),
  })
  .refine((r) => r.trajectory_id !== undefined || r.trajectory_path !== undefined, {
    message: "a subagent reference needs trajectory_id or trajectory_path",
  });

export const AtifObservationResultSchema = z.strictObject({
  source_call_id: z.string().nullable().optional(),
  content: Content.nullable().optional(),
  subagent_trajectory_ref: z.array(AtifSubagentRefSchema).nullable().optional(),
  extra: Extra.optional(),
});

export const AtifMetricsSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative().optional(),
  completion_tokens: z.number().int().nonnegative().optional(),
  cached_tokens: z.number().int().nonnegative().optional(),
  cost_usd: z.number().nonnegative().optional(),
  prompt_token_ids: z.array(z.number().int()).optional(),
  completion_token_ids: z.array(z.number().int()).optional(),
  logprobs: z.array(z.number()).optional(),
  extra: Extra.optional(),
});

/** Fields only an agent step may carry. */
const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] as const;

export const AtifStepSchema = z
  .strictObject({
    step_id: z.number().int().positive(),
    timestamp: z.iso.datetime({ offset: true }).optional(),
    source: z.enum(["system", "user", "agent"]),
    model_name: z.string().optional(),
    reasoning_effort: z.union([z.string(), z.number()]).optional(),
    message: Content,
    reasoning_content: z.string().optional(),
    tool_calls: z.array(AtifToolCallSchema).optional(),
    observation: z.strictObject({ results: z.array(AtifObservationResultSchema) }).optional(),
    metrics: AtifMetricsSchema.optional(),
    /** Copied from an earlier trajectory for context (not this run's work; left out of training). */
    is_copied_context: z.boolean().optional(),
    /** Model calls this step stands for: 0 is a deterministic dispatch (then no metrics or reasoning). */
    llm_call_count: z.number().int().nonnegative().optional(),
    extra: Extra.optional(),
  })
  .superRefine((s, ctx) => {
    if (s.source !== "agent") {
      for (const key of AGENT_ONLY) {
        if (s[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `only agent steps carry ${key}` });
      }
    } else if (s.llm_call_count === 0 && (s.metrics !== undefined || s.reasoning_content !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["llm_call_count"], message: "a step of no model call has no metrics or reasoning" });
    }
    // A result names a call of its own step (a result with no call of this step says so in `extra`).
    const calls = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const [i, r] of (s.observation?.results ?? []).entries()) {
      if (typeof r.source_call_id === "string" && !calls.has(r.source_call_id)) {
        ctx.addIssue({
          code: "custom",
          path: ["observation", "results", i, "source_call_id"],
          message: `${r.source_call_id} is not a tool call of step ${s.step_id}`,
        });
      }
    }
  });

const FinalMetricsSchema = z.strictObject({
  total_prompt_tokens: z.number().int().nonnegative().optional(),
  total_completion_tokens: z.number().int().nonnegative().optional(),
  total_cached_tokens: z.number().int().nonnegative().optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  total_steps: z.number().int().nonnegative().optional(),
  extra: Extra.optional(),
});

const AgentSchema = z.strictObject({
  name: z.string().min(1),
  version: z.string().min(1),
  model_name: z.string().optional(),
  tool_definitions: z.array(z.record(z.string(), z.unknown())).optional(),
  extra: Extra.optional(),
});

export interface AtifTrajectory {
  schema_version: typeof ATIF_SCHEMA_VERSION;
  session_id?: string | undefined;
  trajectory_id?: string | undefined;
  agent: z.infer<typeof AgentSchema>;
  steps: AtifStep[];
  notes?: string | undefined;
  final_metrics?: z.infer<typeof FinalMetricsSchema> | undefined;
  continued_trajectory_ref?: string | undefined;
  extra?: Record<string, unknown> | undefined;
  subagent_trajectories?: AtifTrajectory[] | undefined;
}

export const AtifTrajectorySchema: z.ZodType<AtifTrajectory> = z
  .strictObject({
    schema_version: z.literal(ATIF_SCHEMA_VERSION),
    session_id: z.string().min(1).optional(),
    trajectory_id: z.string().min(1).optional(),
    agent: AgentSchema,
    steps: z.array(AtifStepSchema).min(1),
    notes: z.string().optional(),
    final_metrics: FinalMetricsSchema.optional(),
    continued_trajectory_ref: z.string().optional(),
    extra: Extra.optional(),
    subagent_trajectories: z.array(z.lazy(() => AtifTrajectorySchema)).optional(),
  })
  .superRefine((t, ctx) => {
    t.steps.forEach((s, i) => {
      if (s.step_id !== i + 1)
        ctx.addIssue({ code: "custom", path: ["steps", i, "step_id"], message: "step_id must count 1, 2, 3, … in order" });
    });
    const seen = new Set<string>();
    (t.subagent_trajectories ?? []).forEach((sub, i) => {
      const id = sub.trajectory_id;
      if (id === undefined || seen.has(id)) {
        ctx.addIssue({
          code: "custom",
          path: ["subagent_trajectories", i, "trajectory_id"],
          message: "an embedded subagent trajectory needs a trajectory_id unique among its siblings",
        });
      } else seen.add(id);
    });
  });

export type AtifStep = z.infer<typeof AtifStepSchema>;
