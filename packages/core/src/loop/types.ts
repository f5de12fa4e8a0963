import type { WatchEventInput } from "../events/watch-events.js";
import type { PermissionReply } from "../tools/ask.js";
import type { PermissionRequest } from "../tools/tool.js";

export type { AgentDefinition } from "../agents/definition.js";
export type { ModelResolver, ModelScenario, ResolvedModel } from "../llm/resolved-model.js";
export type { LoopClock, RetryOptions } from "../llm/retry.js";
export type * from "./run-types.js";

/** A permission ask waiting for an answer (`runtime.replyPermission`). */
export interface PendingPermission {
  id: string;
  sessionId: string;
  agent: string;
  tool?: string;
  callId?: string;
  request: PermissionRequest;
}

/**
 * How asks are answered when the runtime has someone to ask (a CLI prompt, `--yes`). Returning
 * undefined leaves the ask pending for `runtime.replyPermission` (the server's route).
 */
export type PermissionHandler = (
  pending: PendingPermission,
  signal: AbortSignal,
) => PermissionReply | undefined | Promise<PermissionReply | undefined>;

/** Where the runtime tells watchers what happens in a trace: a `WatchHub` (SPEC 8). */
export interface TracePublisher {
  /** Logs and delivers an event; never rejects (watching must never fail a run). */
  publish(traceId: string, event: WatchEventInput): Promise<void>;
}
