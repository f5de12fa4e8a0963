import { z } from "zod";
import { EntryIdSchema, SessionIdSchema } from "./ids.js";
import { PermissionRuleSchema } from "./permission-rule.js";
import { TimestampSchema } from "./time.js";

/** The format version this Arbor writes; older versions are migrated on read (see session/migrate.ts). */
export const SESSION_FORMAT_VERSION = 1;

export const StoreProviderSchema = z.enum(["file", "sqlite", "mysql", "postgres"]);
export type StoreProvider = z.infer<typeof StoreProviderSchema>;

export const TraceModeSchema = z.enum(["call", "agent"]);
/** `interrupted`: the process driving it died mid-run (a crash, kill -9); nothing drives it now. */
export const TraceStatusSchema = z.enum(["running", "completed", "failed", "aborted", "interrupted"]);

/** Limits a trace runs under (its `context`, as clients send it). `timeout` is in seconds. */
export const TraceContextSchema = z.looseObject({
  allowedTools: z.array(z.string()).optional(),
  deniedTools: z.array(z.string()).optional(),
  maxTurns: z.number().int().positive().optional(),
  timeout: z.number().positive().optional(),
  /** Input plus output tokens the trace may spend across its model calls. */
  maxTokens: z.number().int().positive().optional(),
  /** Tool calls the trace may make. */
  maxToolCalls: z.number().int().positive().optional(),
  /** Sub-traces of this trace that may run at once (explore's branches). */
  maxConcurrentSubTraces: z.number().int().positive().optional(),
  /** The rules of the agent that started this trace: it may never do more than they allow. */
  callerPermission: z.array(PermissionRuleSchema).optional(),
});

export const SessionMetaSchema = z.looseObject({
  version: z.number().int().positive(),
  id: SessionIdSchema,
  provider: StoreProviderSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  rootEntryId: EntryIdSchema.nullable(),
  leafEntryId: EntryIdSchema.nullable(),
  title: z.string().optional(),
  cwd: z.string().optional(),
  agentId: z.string().optional(),
  // Trace fields: a main agent and every sub-agent share this shape, so one view reads both.
  mode: TraceModeSchema,
  agentType: z.string().min(1),
  task: z.string().optional(),
  parentSessionId: SessionIdSchema.optional(),
  parentGoalId: z.string().optional(),
  context: TraceContextSchema.optional(),
  status: TraceStatusSchema.optional(),
  completedAt: TimestampSchema.optional(),
  /** The principal that created the session (a token id, `local`), when a front door said. */
  createdBy: z.string().optional(),
  /** Set on sessions made by createBranchedSession. */
  branchedFrom: z.object({ sessionId: SessionIdSchema, entryId: EntryIdSchema }).optional(),
  totalMessages: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  totalCost: z.number().nonnegative(),
  /**
   * Set only in listings, on a session that cannot be opened (a torn session.json, an entry naming
   * one that does not exist): what is wrong with it. Such a session can still be deleted.
   */
  damaged: z.string().optional(),
});

export const SessionInitSchema = z.object({
  id: SessionIdSchema.optional(),
  cwd: z.string().optional(),
  agentId: z.string().optional(),
  title: z.string().max(500).optional(),
  mode: TraceModeSchema.optional(),
  agentType: z.string().min(1).optional(),
  task: z.string().optional(),
  parentSessionId: SessionIdSchema.optional(),
  parentGoalId: z.string().optional(),
  context: TraceContextSchema.optional(),
  /** A trace made by a run starts `running`. */
  status: TraceStatusSchema.optional(),
  /** The principal creating it (see `Principal`). */
  createdBy: z.string().min(1).max(200).optional(),
});

/** What updateSession may change; ids, tree pointers and totals are the store's to maintain. */
export const SessionPatchSchema = z.object({
  title: z.string().max(500).optional(),
  cwd: z.string().optional(),
  agentId: z.string().optional(),
  task: z.string().optional(),
  parentGoalId: z.string().optional(),
  context: TraceContextSchema.optional(),
  status: TraceStatusSchema.optional(),
  completedAt: TimestampSchema.optional(),
});

export type TraceMode = z.infer<typeof TraceModeSchema>;
export type TraceStatus = z.infer<typeof TraceStatusSchema>;
export type TraceContext = z.infer<typeof TraceContextSchema>;
export type SessionMeta = z.infer<typeof SessionMetaSchema>;
export type SessionInit = z.input<typeof SessionInitSchema>;
export type SessionPatch = z.input<typeof SessionPatchSchema>;
