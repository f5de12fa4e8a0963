/**
 * `@arbor/core/session`: reading and changing a stored session outside a run — its active path, goals,
 * plan, todos, approvals, workspace snapshots and reverts, steering, and the `customType`s of the
 * entries it holds. Used by the CLI's session commands, the server and the benchmarks.
 */

export type { AnsweredFunction } from "../client-functions/answer-function.js";
export type { ClientFunction, PendingFunctionCall } from "../client-functions/client-function-asks.js";
export { AWAITING_CLIENT, clientFunctionTool } from "../client-functions/client-function-tool.js";
export { goalTreeOnPath } from "../goal/goal-path.js";
export type { GoalTree } from "../goal/goal-tree.js";
export { displayNumbers, goalLabel, planView } from "../goal/numbering.js";
export { GOAL_MARKERS } from "../goal/to-prompt.js";
export type { ElicitationAnswer, ElicitationHandler, PendingElicitation } from "../mcp/elicitations.js";
export type { McpLoginAnswer, McpLoginHandler, PendingMcpLogin } from "../mcp/login-asks.js";
export { type ApprovalLookup, listScopedApprovals, revokeScopedApproval } from "../permissions/approval-scopes.js";
export { APPROVAL_ENTRY_TYPE, type ApprovalScope, type ListedApproval } from "../permissions/approvals.js";
export { latestPlanRecord } from "../plan/plan-record.js";
export type { QuestionHandler } from "../questions/question-asks.js";
export {
  type PendingQuestion,
  type QuestionAnswer,
  type QuestionInput,
  QuestionInputSchema,
} from "../questions/question-schema.js";
export type { SessionSummary, SteerResult, SummaryOptions } from "../runtime/types.js";
/** The stored result of a call its run stopped on while it waited for permission (it never ran). */
export { PERMISSION_UNANSWERED_OUTPUT } from "../session/context-state.js";
export { DELETE_ENTRY_TYPE } from "../session/delete-entry.js";
export { GOAL_COMPACTION_ENTRY_TYPE } from "../session/goal-collapse.js";
export { PRUNE_ENTRY_TYPE } from "../session/prune-entry.js";
export { activePath } from "../session/tree.js";
export { GitRunner } from "../snapshot/git-runner.js";
export { gitAvailable, openSnapshots } from "../snapshot/git-snapshots.js";
export { revertSession } from "../snapshot/revert.js";
export { unrevertSession } from "../snapshot/unrevert.js";
export { steerSession } from "../steering/steering.js";
export { todosOnPath } from "../todos/todo-record.js";
export { renderTodos } from "../todos/todo-store.js";
