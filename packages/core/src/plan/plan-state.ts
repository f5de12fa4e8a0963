import { randomBytes } from "node:crypto";
import { ArborError } from "../errors.js";
import { createGoalTree, type GoalTree } from "../goal/goal-tree.js";
import { goalsKey } from "../goal/goals-key.js";
import type { RunContext } from "../loop/run-context.js";
import { addPlanGoals, addStepGoals, closePlanGoal, closeStepGoal, type PlanGoalChange } from "./plan-goals.js";
import { type Plan, type PlanStep, type PlanStepStatus, planIdFor, stepView } from "./plan-schema.js";
import type { PlanChange, PlanUpdateStatus, RunPlan } from "./run-plan.js";

/** A step's executor said how it went (`plan_update` from inside the step); phase 2 honours it. */
export interface StepReport {
  status: PlanUpdateStatus;
  note?: string;
}

/**
 * One run's plan: made by `plan_create` in phase 1, or read back from the session when an approval
 * resumes phase 2. Held by the run (never module state); phase 2 and the tools change it here.
 */
export class PlanState implements RunPlan {
  plan: Plan | undefined;
  /** Set by `plan_create` in this run: phase 1 stops and phase 2 follows. */
  created = false;
  /** Reports from the executor of the step that is running, by step id. */
  readonly reports = new Map<number, StepReport>();

  constructor(
    private readonly ctx: RunContext,
    readonly maxSteps: number,
  ) {}

  get stopsPhaseOne(): boolean {
    return this.created;
  }

  private now(): string {
    return new Date(this.ctx.clock.now()).toISOString();
  }

  /** Makes `change` the run's goal tree (published to watchers) and returns it. */
  applyGoals(change: PlanGoalChange): void {
    this.ctx.values.get(goalsKey)?.set(change.tree, change);
  }

  /** The run's goal tree, kept by the goal extension. */
  private get goals(): GoalTree | undefined {
    return this.ctx.values.get(goalsKey)?.get();
  }

  create(input: { title: string; steps: readonly string[] }): PlanChange {
    if (this.plan && this.created) {
      throw new ArborError("invalid_input", `This turn already made the plan "${this.plan.title}"; it runs once this turn ends.`);
    }
    const tree = this.goals ?? createGoalTree(this.ctx.values.get(goalsKey)?.mission ?? "");
    const goals = addPlanGoals(tree, { title: input.title, steps: input.steps }, this.now());
    this.applyGoals(goals);
    const steps: PlanStep[] = input.steps.map((title, i) => ({
      id: i + 1,
      title,
      status: "pending",
      goalId: goals.stepGoalIds[i]!,
    }));
    const plan: Plan = {
      planId: planIdFor(this.ctx.sessionId, randomBytes(4).toString("hex")),
      title: input.title,
      steps,
      goalId: goals.planGoalId,
      nextStepId: steps.length + 1,
    };
    this.plan = plan;
    this.created = true;
    this.ctx.emit({ type: "plan_created", plan: { plan_id: plan.planId, title: plan.title, steps: steps.map(stepView) } });
    const capped = steps.length > this.maxSteps ? ` Only the first ${this.maxSteps} run (PLAN_MAX_STEPS).` : "";
    return {
      plan,
      goalTree: goals.tree,
      message: `Plan "${plan.title}" created with ${steps.length} step${steps.length === 1 ? "" : "s"} (plan_id ${plan.planId}).${capped} Each step runs by its own executor once this turn ends; stop here.`,
    };
  }

  update(input: { stepId: number; status: PlanUpdateStatus; note?: string }): PlanChange {
    const plan = this.plan;
    if (!plan) throw new ArborError("invalid_input", "There is no plan to update yet: make one with plan_create.");
    const step = plan.steps.find((s) => s.id === input.stepId);
    if (!step) {
      throw new ArborError(
        "invalid_input",
        `Plan "${plan.title}" has no step ${input.stepId}; its steps are ${plan.steps.map((s) => s.id).join(", ")}.`,
      );
    }
    if (step.status === "running") {
      // The step's own executor reporting: phase 2 applies it when the step ends.
      this.reports.set(step.id, { status: input.status, ...(input.note ? { note: input.note } : {}) });
      return { plan, message: `Step ${step.id} will be recorded as ${input.status} when it ends.` };
    }
    if (step.status !== "pending") {
      throw new ArborError(
        "invalid_input",
        `Step ${step.id} is already ${step.status}; only pending or running steps can change.`,
      );
    }
    this.setStep(step.id, input.status, input.note);
    return {
      plan: this.plan!,
      ...(this.goals ? { goalTree: this.goals } : {}),
      message: `Step ${step.id} marked ${input.status}; it will not run.`,
    };
  }

  /** Sets a step's status (and result), closes its goal when it ends, and tells the stream. */
  setStep(stepId: number, status: PlanStepStatus, result?: string, subTraceId?: string): PlanStep | undefined {
    const plan = this.plan;
    const step = plan?.steps.find((s) => s.id === stepId);
    if (!plan || !step) return undefined;
    const next: PlanStep = {
      ...step,
      status,
      ...(result !== undefined ? { result } : {}),
      ...(subTraceId !== undefined ? { subTraceId } : {}),
    };
    this.plan = { ...plan, steps: plan.steps.map((s) => (s.id === stepId ? next : s)) };
    if (step.goalId && this.goals && status !== "running" && status !== "pending") {
      const goalStatus = status === "completed" ? "completed" : "abandoned";
      const summary = result ?? (status === "skipped" ? "Skipped." : status);
      this.applyGoals(closeStepGoal(this.goals, step.goalId, goalStatus, summary, this.now()));
    }
    this.ctx.emit({ type: "plan_updated", plan_id: plan.planId, step_id: stepId, status });
    return next;
  }
  /**
   * Replaces the steps not yet run with `titles` (the replanner's revise): their goals are
   * abandoned, new pending goals added under the plan goal, and `plan_revised` tells the stream.
   */
  revise(titles: readonly string[], reason: string): void {
    const plan = this.plan;
    if (!plan) return;
    const kept = plan.steps.filter((s) => s.status !== "pending");
    const now = this.now();
    for (const step of plan.steps) {
      if (step.status !== "pending" || !step.goalId || !this.goals) continue;
      this.applyGoals(closeStepGoal(this.goals, step.goalId, "abandoned", `Replaced by a revision: ${reason}`, now));
    }
    let goalIds: string[] = [];
    if (plan.goalId && this.goals) {
      const added = addStepGoals(this.goals, plan.goalId, titles, now);
      this.applyGoals(added);
      goalIds = added.stepGoalIds;
    }
    const fresh: PlanStep[] = titles.map((title, i) => ({
      id: plan.nextStepId + i,
      title,
      status: "pending",
      ...(goalIds[i] ? { goalId: goalIds[i] } : {}),
    }));
    this.plan = { ...plan, steps: [...kept, ...fresh], nextStepId: plan.nextStepId + fresh.length };
    this.ctx.emit({
      type: "plan_revised",
      plan_id: plan.planId,
      revised_steps: fresh.map(stepView),
      keep_completed: kept.length,
      reason,
    });
  }

  /** Closes the plan goal (steps left open are abandoned with it). */
  closePlan(status: "completed" | "abandoned", summary: string): void {
    const goalId = this.plan?.goalId;
    if (goalId && this.goals) this.applyGoals(closePlanGoal(this.goals, goalId, status, summary, this.now()));
  }
}

/** What an executor's `plan_update` does: reports on the plan of the run that started it. */
export function executorPlanView(parent: PlanState): RunPlan {
  return {
    maxSteps: parent.maxSteps,
    stopsPhaseOne: false,
    create() {
      throw new ArborError("invalid_input", "plan_create is not available while a plan step runs: do this step only.");
    },
    update(input) {
      // The parent's tree is not this trace's: leave it out of the executor's tool result.
      const { plan, message } = parent.update(input);
      return { plan, message };
    },
  };
}
