export { type ApprovePlanDeps, approvePlan, type PlanApprovalResult } from "./approve.js";
export { EXECUTOR_SYSTEM, executorPrompt } from "./executor-prompt.js";
export { MAX_PLAN_STEPS, MAX_STEP_CHARS, normalizeSteps, type StepInput, StepInputSchema } from "./normalize-steps.js";
export { planReport } from "./phase-two.js";
export {
  type PlanApprovalAnswer,
  type PlanApprovalHandler,
  type PlanApprovalRequest,
  PlanGate,
} from "./plan-gate.js";
export { addPlanGoals, addStepGoals, closePlanGoal, closeStepGoal, type PlanGoalChange, startStepGoal } from "./plan-goals.js";
export { type PlanExecution, type PlanModeDeps, planExtension, planToolRules } from "./plan-mode.js";
export {
  latestPlanRecord,
  PLAN_ENTRY_TYPE,
  type PlanRecord,
  PlanRecordSchema,
  type PlanRecordStatus,
  PlanRecordStatusSchema,
} from "./plan-record.js";
export {
  type Plan,
  PlanIdSchema,
  PlanSchema,
  type PlanStep,
  PlanStepSchema,
  type PlanStepStatus,
  PlanStepStatusSchema,
  RESULT_CHARS,
  sessionOfPlan,
} from "./plan-schema.js";
export {
  PLAN_CREATE_TOOL,
  PLAN_UPDATE_TOOL,
  PlanCreateInputSchema,
  type PlanToolMetadata,
  PlanUpdateInputSchema,
  planCreateTool,
  planUpdateTool,
} from "./plan-tools.js";
export {
  callReplanner,
  type PastStep,
  REPLAN_TOOL,
  type ReplanDecision,
  ReplanDecisionSchema,
  replannerPrompt,
  shouldSkipReplan,
} from "./replanner.js";
export { type PlanChange, type PlanUpdateStatus, planKey, type RunPlan } from "./run-plan.js";
export { EXECUTOR_AGENT, EXECUTOR_CONTEXT, PLAN_STEP_MODE } from "./step-runner.js";
