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

function resultOf(change: PlanChange) {
  return {
    output: change.message,
    title: change.plan.title,
    // `goalTree` records the plan in the session tree, as a `goal` result does, so it is read back with the tree.
    metadata: { plan: change.plan, ...(change.goalTree ? { goalTree: change.goalTree } : {}) } as PlanToolMetadata,
  };
}

/** `plan_create(title, steps)`: ends phase 1; each step then runs as its own executor. */
export function planCreateTool() {
  return defineTool<typeof PlanCreateInputSchema, PlanToolMetadata>({
    name: PLAN_CREATE_TOOL,
    effects: "at-most-once",
    description: [
      "Make a plan for a task that needs several distinct steps of work. After this call your turn ends: each step is",
      "then carried out in order by an executor agent of its own, which sees the plan, its step and the earlier steps'",
      "results, and the plan may be revised between steps. Write each step as one self-contained instruction. Do not",
      "use it for simple tasks you can do directly.",
    ].join(" "),
    input: PlanCreateInputSchema,
    async execute(input, ctx) {
      const plan = planOf(ctx);
      return resultOf(plan.create({ title: input.title, steps: normalizeSteps(input.steps) }));
    },
  });
}

/** `plan_update(step_id, status, note?)`: marks a step of the current plan (by the planner, or by a step's executor). */
export function planUpdateTool() {
  return defineTool<typeof PlanUpdateInputSchema, PlanToolMetadata>({
    name: PLAN_UPDATE_TOOL,
    effects: "at-most-once",
    description: [
      "Report on a step of the current plan: completed, failed (it cannot be done, say why in note) or skipped (not",
      "needed). A step marked before it runs is not run. While executing a step, use it to say your step failed.",
    ].join(" "),
    input: PlanUpdateInputSchema,
    async execute(input, ctx) {
      const plan = planOf(ctx);
      return resultOf(
        plan.update({ stepId: input.step_id, status: input.status, ...(input.note !== undefined ? { note: input.note } : {}) }),
      );
    },
  });
}
