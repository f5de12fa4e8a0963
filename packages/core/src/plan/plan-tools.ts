import { z } from "zod";
import { ArborError } from "../errors.js";
import type { GoalTree } from "../goal/goal-tree.js";
import { defineTool, type ToolContext } from "../tools/tool.js";
import { normalizeSteps, StepInputSchema } from "./normalize-steps.js";
import type { Plan } from "./plan-schema.js";
import { type PlanChange, planKey, type RunPlan } from "./run-plan.js";

export const PLAN_CREATE_TOOL = "plan_create";
export const PLAN_UPDATE_TOOL = "plan_update";

export const PlanCreateInputSchema = z.strictObject({
  title: z.string().trim().min(1, "give the plan a title").max(200).describe("What the plan achieves, in a few words."),
  steps: z
    .array(StepInputSchema)
    .min(1, "a plan needs at least one step")
    .describe('The steps in order: strings, or objects with a "title" (and optionally a "description").'),
});

export const PlanUpdateInputSchema = z.strictObject({
  step_id: z.coerce.number().int().positive().describe("The step's id, as plan_create numbered it (1, 2, …)."),
  status: z
    .enum(["completed", "failed", "skipped"])
    .describe("completed: done (already, or by you); failed: it cannot be done; skipped: not needed."),
  note: z.string().max(2000).optional().describe("What happened, in a sentence or two."),
});

export type PlanToolMetadata = { plan: Plan; goalTree?: GoalTree };

function planOf(ctx: ToolContext): RunPlan {
  const plan = ctx.run?.get(planKey);
  if (!plan) {
    throw new ArborError(
      "invalid_input",
      "Plan mode is not available here (PLAN_ENABLED is off, or this is a sub-agent): plan with the goal tool instead.",
    );
  }
  return plan;
}

/**
 * A tool that changes the run's plan: `change` makes the change, and its result is the plan's
 * message, with the plan (and the goal tree, when the change records one) as metadata. Each call
 * changes the plan once, so none is repeated.
 */
function planTool<I extends z.ZodType>(
  name: string,
  description: string[],
  input: I,
  change: (plan: RunPlan, input: z.output<I>) => PlanChange,
) {
  return defineTool<I, PlanToolMetadata>({
    name,
    effects: "at-most-once",
    description: description.join(" "),
    input,
    async execute(args, ctx) {
      const c = change(planOf(ctx), args);
      return {
        output: c.message,
        title: c.plan.title,
        // `goalTree` records the plan in the session tree, as a `goal` result does, so it is read back with the tree.
        metadata: { plan: c.plan, ...(c.goalTree ? { goalTree: c.goalTree } : {}) } as PlanToolMetadata,
      };
    },
  });
}

/** `plan_create(title, steps)`: ends phase 1; each step then runs as its own executor. */
export function planCreateTool() {
  return planTool(
    PLAN_CREATE_TOOL,
    [
      "Make a plan for a task that needs several distinct steps of work. After this call your turn ends: each step is",
      "then carried out in order by an executor agent of its own, which sees the plan, its step and the earlier steps'",
      "results, and the plan may be revised between steps. Write each step as one self-contained instruction. Do not",
      "use it for simple tasks you can do directly.",
    ],
    PlanCreateInputSchema,
    (plan, input) => plan.create({ title: input.title, steps: normalizeSteps(input.steps) }),
  );
}

/** `plan_update(step_id, status, note?)`: marks a step of the current plan (by the planner, or by a step's executor). */
export function planUpdateTool() {
  return planTool(
    PLAN_UPDATE_TOOL,
    [
      "Report on a step of the current plan: completed, failed (it cannot be done, say why in note) or skipped (not",
      "needed). A step marked before it runs is not run. While executing a step, use it to say your step failed.",
    ],
    PlanUpdateInputSchema,
    (plan, input) =>
      plan.update({ stepId: input.step_id, status: input.status, ...(input.note !== undefined ? { note: input.note } : {}) }),
  );
}
