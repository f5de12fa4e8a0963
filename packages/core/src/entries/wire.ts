/**
 * `@arbor/core/wire`: the zod schemas and id checks for data that crosses a process boundary — request
 * and response bodies, path parameters, the events a watcher receives. Used by the server and the CLI
 * to validate input; the public entry keeps only the schemas of its own types.
 */
export {
  GoalAddedEventSchema,
  GoalUpdatedEventSchema,
  SubTraceCompletedEventSchema,
  SubTraceStartedEventSchema,
  WatchMessageSchema,
} from "../events/watch-events.js";
export { goalTreeToWire } from "../goal/goal-wire.js";
export { ModelRefSchema } from "../model/entry.js";
export { assertEntryId, assertSessionId } from "../model/ids.js";
export {
  ElicitationAnsweredEventSchema,
  ElicitationRequestEventSchema,
  LlmEndEventSchema,
  PlanApprovalRequestEventSchema,
  PlanCreatedEventSchema,
  PlanRevisedEventSchema,
  PlanUpdatedEventSchema,
  QuestionRequestEventSchema,
  type RunEventOf,
  RunUsageSchema,
  runUsageOnWire,
  ToolProgressEventSchema,
} from "../model/run-events.js";
export { TraceContextSchema, TraceModeSchema, TraceStatusSchema } from "../model/session.js";
export { parseOrThrow } from "../model/validate.js";
export { ApprovalSchema, ApprovalScopeSchema } from "../permissions/approvals.js";
export { PlanIdSchema, sessionOfPlan } from "../plan/plan-schema.js";
export { type TimelineLane, TimelineLaneSchema } from "../trace/timeline.js";
