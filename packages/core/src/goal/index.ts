export { type AgentCallMode, finishAgentCall, startAgentCall } from "./agent-call.js";
export { applyGoalCommand, type GoalCommand, type GoalCommandResult } from "./commands.js";
export { GOAL_TREE_ENTRY_TYPE, goalTreeOnPath, messageStats, recordedGoalTree } from "./goal-path.js";
export * from "./goal-tool.js";
export * from "./goal-tree.js";
export { goalTreeProblems } from "./invariants.js";
export { displayNumbers, goalLabel, type PlanView, planView, resolveGoalNumber } from "./numbering.js";
export * from "./stats.js";
export { GOAL_MARKERS, toOutline, toPrompt } from "./to-prompt.js";
