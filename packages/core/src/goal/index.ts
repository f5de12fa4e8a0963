export { applyGoalCommand, type GoalCommand, type GoalCommandResult } from "./commands.js";
export * from "./goal-tool.js";
export * from "./goal-tree.js";
export { goalTreeProblems } from "./invariants.js";
export { displayNumbers, goalLabel, type PlanView, planView, resolveGoalNumber } from "./numbering.js";
export * from "./stats.js";
export { GOAL_MARKERS, toOutline, toPrompt } from "./to-prompt.js";
