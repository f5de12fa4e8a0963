import type { WatchEventInput } from "../events/watch-events.js";

export type { AgentDefinition } from "../agents/definition.js";
export type { ModelResolver, ModelScenario, ResolvedModel } from "../llm/resolved-model.js";
export type { LoopClock, RetryNotice, RetryOptions } from "../llm/retry.js";
export type { PendingPermission, PermissionHandler } from "../permissions/pending-permissions.js";
export type * from "./run-types.js";

/** Where the runtime tells watchers what happens in a trace: a `WatchHub`. */
export interface TracePublisher {
  /** Logs and delivers an event; never rejects (watching must never fail a run). */
  publish(traceId: string, event: WatchEventInput): Promise<void>;
}
