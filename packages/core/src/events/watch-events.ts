import { z } from "zod";

/**
 * The trace watch events, field names as the web client reads them (snake_case, `event` as the
 * discriminator). Every event but `connected` is persisted in the session's event log and carries
 * its `event_id`, strictly increasing per watched trace; `trace_id` names the trace it happened in,
 * which is a sub-trace's id when a parent's watchers see a sub-trace's events.
 */

const persisted = {
  event_id: z.number().int().positive(),
  trace_id: z.string(),
  /** ISO-8601 with milliseconds, when the event was logged. */
  timestamp: z.string(),
};

const statsRecord = z.record(z.string(), z.unknown());

/** A goal whose stats or status an event changed: the goal itself, then each ancestor (whose cumulative stats changed with it). */
export const AffectedGoalSchema = z.looseObject({
  goal_id: z.string(),
  status: z.string().optional(),
  summary: z.string().optional(),
  self_stats: statsRecord.optional(),
  cumulative_stats: statsRecord.optional(),
});

/** What `message_added` says about a message: its metadata, not its content (read that from the session). */
export const MessageSummarySchema = z.looseObject({
  message_id: z.string(),
  parent_id: z.string().nullable(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  goal_id: z.string().optional(),
  description: z.string().optional(),
  model: z.string().optional(),
  finish_reason: z.string().optional(),
  tokens: z
    .object({ input: z.number(), output: z.number(), reasoning: z.number(), cache_read: z.number(), cache_write: z.number() })
    .optional(),
  cost: z.number().optional(),
  duration_ms: z.number().optional(),
  error: z.string().optional(),
  created_at: z.string(),
});

export const TraceStatsSchema = z.object({
  total_messages: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  total_cost: z.number().nonnegative(),
});

/** Sent first on every watch connection; not logged. */
export const ConnectedEventSchema = z.object({
  event: z.literal("connected"),
  trace_id: z.string(),
  /** The last event id logged when the connection opened (0 for none). */
  current_event_id: z.number().int().nonnegative(),
  /** The oldest event id still kept; a client resuming before it has missed events that retention dropped. */
  first_event_id: z.number().int().nonnegative(),
  /** The whole goal tree, when the runtime keeps one for this trace. */
  goal_tree: z.unknown().nullable(),
});

/** How a run began: a new prompt, a plan approval's continuation, a run taken up after its process died, or a replayed call. */
export const TraceStartKindSchema = z.enum(["prompt", "resume", "wake", "replay"]);

/** A run of the trace began (once per run, before its first message); `trace_completed` ends it. */
export const TraceStartedEventSchema = z.object({
  event: z.literal("trace_started"),
  ...persisted,
  kind: TraceStartKindSchema,
  /** The agent the run goes on as. */
  agent: z.string(),
});

export const GoalAddedEventSchema = z.object({
  event: z.literal("goal_added"),
  ...persisted,
  goal: z.looseObject({ id: z.string() }),
  parent_id: z.string().nullable(),
});

export const GoalUpdatedEventSchema = z.object({
  event: z.literal("goal_updated"),
  ...persisted,
  goal_id: z.string(),
  updates: z.record(z.string(), z.unknown()),
  affected_goals: z.array(AffectedGoalSchema),
});

export const MessageAddedEventSchema = z.object({
  event: z.literal("message_added"),
  ...persisted,
  message: MessageSummarySchema,
  affected_goals: z.array(AffectedGoalSchema),
});

export const SubTraceStartedEventSchema = z.object({
  event: z.literal("sub_trace_started"),
  ...persisted,
  parent_trace_id: z.string(),
  parent_goal_id: z.string().optional(),
  agent_type: z.string(),
  task: z.string().optional(),
});

export const SubTraceCompletedEventSchema = z.object({
  event: z.literal("sub_trace_completed"),
  ...persisted,
  status: z.string(),
  summary: z.string(),
  stats: TraceStatsSchema,
});

export const TraceCompletedEventSchema = z.object({
  event: z.literal("trace_completed"),
  ...persisted,
  /** How the run ended: `done`, `error` or `aborted`. */
  status: z.string(),
  stats: TraceStatsSchema,
});

/** Every logged watch event. */
export const WatchEventSchema = z.discriminatedUnion("event", [
  TraceStartedEventSchema,
  GoalAddedEventSchema,
  GoalUpdatedEventSchema,
  MessageAddedEventSchema,
  SubTraceStartedEventSchema,
  SubTraceCompletedEventSchema,
  TraceCompletedEventSchema,
]);

/** What a watch connection sends: `connected`, then logged events. */
export const WatchMessageSchema = z.union([ConnectedEventSchema, WatchEventSchema]);

export type AffectedGoal = z.infer<typeof AffectedGoalSchema>;
export type MessageSummary = z.infer<typeof MessageSummarySchema>;
export type TraceStats = z.infer<typeof TraceStatsSchema>;
export type TraceStartKind = z.infer<typeof TraceStartKindSchema>;
export type ConnectedEvent = z.infer<typeof ConnectedEventSchema>;
export type WatchEvent = z.infer<typeof WatchEventSchema>;
export type WatchEventName = WatchEvent["event"];
export type WatchMessage = z.infer<typeof WatchMessageSchema>;

type Unlogged<T> = T extends unknown ? Omit<T, "event_id" | "trace_id" | "timestamp"> : never;
/** A watch event as published: the hub adds `event_id`, `trace_id` and `timestamp`. */
export type WatchEventInput = Unlogged<WatchEvent>;
