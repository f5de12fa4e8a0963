import { isAbsolute } from "node:path";
import { EntrySchema, RunEventSchema, SessionMetaSchema, SnapshotSchema, ThinkingLevelSchema } from "@arbor/core";
import { ApprovalSchema, ApprovalScopeSchema, ModelRefSchema, RunUsageSchema, TimelineLaneSchema } from "@arbor/core/wire";
import { z } from "zod";
import { ChatDebug } from "./cache-debug-schemas.js";
import { EntryId, SessionId } from "./id-schemas.js";
import {
  AgentStepWire,
  FoundToolCallWire,
  MessagePageResponse,
  ToolCallListResponse,
  ToolCallWire,
  ToolResultWire,
  ToolStatsResponse,
  ToolStatsWire,
  TraceMessageWire,
} from "./message-trace-schemas.js";

export { EntryId, SessionId } from "./id-schemas.js";
export * from "./message-trace-schemas.js";
export * from "./trace-schemas.js";

/**
 * Every payload of the API, once. Routes validate with these and the OpenAPI document is generated
 * from them, so the two cannot disagree. Field names are the wire's (snake_case); the
 * snapshot and session metadata keep core's camelCase, as clients read them. `wire.ts` maps to and from core's types.
 */

const PERMISSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export const PermissionId = z
  .string()
  .regex(PERMISSION_ID, "Permission id is not valid: expected the id of a permission_request event (perm_…).")
  .describe("The `id` of a `permission_request` event.");

// Path parameters and query strings.

export const SessionParams = z.object({ id: SessionId });
export const PermissionParams = z.object({ id: PermissionId });

export const ListSessionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("Page size, 1-1000 (default 50)."),
  cursor: z.string().min(1).max(2000).optional().describe("`next_cursor` of the previous page."),
  cwd: z
    .string()
    .max(4096, "cwd is longer than any workspace path (4096 characters).")
    .refine(
      (value) => isAbsolute(value) && !value.includes("\0"),
      "cwd must be an absolute directory path, such as /home/me/project.",
    )
    .optional()
    .describe("Only sessions whose workspace is exactly this absolute directory."),
  parent_id: z
    .union([z.literal("none"), SessionId])
    .optional()
    .describe("A session id lists its sub-sessions; `none` lists only top-level sessions."),
});

/** The one filter of every list of what runs wait on (`GET /api/asks`, `GET /api/permissions`). */
export const PendingQuery = z.object({
  session_id: SessionId.optional().describe("Only the asks of this session."),
});

export const ApprovalParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.:-]+$/, "An approval id is the `id` GET /api/approvals lists.")
    .describe("The `id` of an approval, as GET /api/approvals lists it."),
});

export const ApprovalsQuery = z.object({
  session_id: SessionId.optional().describe("Also this session's approvals, and its own workspace's instead of the server's."),
});

export const StreamQuery = z.object({
  last_event_id: z
    .string()
    .regex(/^\d{1,15}$/, "last_event_id must be the decimal id of an event this stream sent.")
    .optional()
    .describe("Resume after this event id; the `Last-Event-ID` header takes precedence."),
});

export const WatchQuery = z.object({
  since_event_id: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0)
    .describe("Send every logged event after this id, then live ones (default 0: the whole log)."),
});

// Request bodies.

/** An MCP server's resource attached to a chat message: the runtime reads it and adds it to the message. */
export const ChatAttachment = z.strictObject({
  mcp_resource: z.strictObject({
    server: z.string().min(1).max(100).describe("The MCP server's name in mcp.servers."),
    uri: z.string().min(1).max(4096).describe("The resource's URI, as GET /api/mcp/servers/{server}/resources lists it."),
  }),
});

export const ChatMcpPrompt = z
  .strictObject({
    server: z.string().min(1).max(100),
    name: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.string()).optional(),
  })
  .describe("An MCP server's prompt, filled in by the server: its messages open the user message, and `message` follows them.");

export const ChatRequest = z.strictObject({
  message: z.string().describe("The user's message (may be empty only with `mcp_prompt`)."),
  session_id: SessionId.optional().describe("Continue this session; a new session is created when absent."),
  from_entry_id: EntryId.optional().describe(
    "Continue from this entry (needs session_id): a user message is re-sent from its parent as a new sibling branch; any other entry becomes the leaf first.",
  ),
  agent: z.string().min(1).max(100).optional().describe("Agent name (default `build`)."),
  model: ModelRefSchema.optional().describe(
    "`provider/model` for this run; a continued session otherwise keeps the model it last used (a change is recorded).",
  ),
  thinking: ThinkingLevelSchema.optional().describe(
    "How hard the model thinks from this run on (off … xhigh, or a budget of reasoning tokens such as 8000); the session keeps it. Default: the session's, else the config's, else the provider's.",
  ),
  debug: ChatDebug.optional(),
  busy: z
    .enum(["steer", "reject"])
    .optional()
    .describe(
      "When session_id has a run in progress (here or in another process): `steer` (default) hands the message to that run, which reads it before its next model call, and answers 202; `reject` answers 409.",
    ),
  stream: z
    .boolean()
    .optional()
    .describe(
      "`false`: answer once the run ends, with its last event as JSON (`done` with status, text, steps, usage and cost, or `error` with code and content) instead of streaming every event. Default `true`.",
    ),
  attachments: z
    .array(ChatAttachment)
    .max(20)
    .optional()
    .describe(
      "MCP resources to add to the message (text under its URI, an image as a file); one that cannot be read fails the run.",
    ),
  mcp_prompt: ChatMcpPrompt.optional(),
});

/** The answer to a chat that steered a running session instead of starting a run. */
export const SteerResponse = z.object({
  steered: z.literal(true),
  session_id: z.string(),
  message_id: z.string().describe("The message's id in the session's inbox."),
});

export const CreateSessionRequest = z.strictObject({
  id: SessionId.optional(),
  title: z.string().max(500).optional(),
  cwd: z.string().min(1).max(4096).optional(),
  agent_id: z.string().min(1).max(100).optional(),
});

export const EntryRequest = z.strictObject({ entry_id: EntryId });

const Focus = z.string().max(10_000).describe('What the summary should keep in particular ("the API design decisions").');

export const LeafRequest = z
  .strictObject({
    entry_id: EntryId,
    summarize: z
      .boolean()
      .optional()
      .describe("Record a branch_summary of the branch being left (written by the compaction model) under the new leaf."),
    from_entry_id: EntryId.optional().describe(
      "With summarize: summarize the branch ending at this entry instead of the active one, bringing its conclusions into the target.",
    ),
    focus: Focus.optional(),
  })
  .refine((b) => b.focus === undefined || b.summarize === true, { message: "focus needs summarize: true", path: ["focus"] })
  .refine((b) => b.from_entry_id === undefined || b.summarize === true, {
    message: "from_entry_id needs summarize: true",
    path: ["from_entry_id"],
  });

export const CompactRequest = z.strictObject({ focus: Focus.optional() });

export const LabelRequest = z.strictObject({
  entry_id: EntryId,
  label: z.string().min(1).max(200).nullable().describe("The label; null clears it."),
});

export const PermissionReplyRequest = z.strictObject({
  reply: z.enum(["once", "always", "reject"]),
  message: z.string().max(10_000).optional().describe("Why, with a rejection; the model reads it."),
  scope: ApprovalScopeSchema.optional().describe(
    "Where an `always` answer holds: `session` (default), `project` (every session in the workspace) or `global`.",
  ),
});

export const RevokeApprovalRequest = z.strictObject({
  agent: z.string().min(1),
  permission: z.string().min(1),
  pattern: z.string().min(1),
});

// Responses.

export const ErrorResponse = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export const HealthResponse = z.object({
  status: z.enum(["ok", "unavailable"]),
  instance: z.string().optional().describe("With --cluster: this instance (host:pid)."),
  accepting: z.boolean().optional().describe("With --cluster: whether this instance takes new work (false while it shuts down)."),
});
export const SessionPageResponse = z.object({
  sessions: z.array(SessionMetaSchema),
  next_cursor: z.string().optional().describe("Pass as `cursor` for the next page; absent on the last page."),
});
export const PermissionResponse = z.object({
  id: PermissionId,
  session_id: z.string(),
  agent: z.string(),
  tool: z.string().optional(),
  call_id: z.string().optional(),
  permission: z.string(),
  patterns: z.array(z.string()),
  always: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const PermissionListResponse = z.object({ permissions: z.array(PermissionResponse) });
export const PermissionReplyResponse = z.object({ id: z.string(), reply: PermissionReplyRequest.shape.reply });
export const ListedApprovalResponse = ApprovalSchema.omit({ revoked: true }).extend({
  id: z.string().describe("Revokes it: DELETE /api/approvals/:id (with the same session_id for a session's)."),
});
export const ApprovalListResponse = z.object({ approvals: z.array(ListedApprovalResponse) });
export const RevokeApprovalResponse = z.object({ revoked: z.boolean() });
/** The tokens of a helper model's call (a summary, a compaction's summary), by kind, as a run's usage has them. */
export const HelperUsageResponse = RunUsageSchema;
export const CompactResponse = z.object({
  session_id: z.string(),
  entry_id: z.string().describe("The compaction entry written (now the leaf)."),
  tokens_before: z.number().int().nonnegative(),
  tokens_after: z.number().int().nonnegative(),
  summarized: z.number().int().nonnegative().describe("Messages the summary replaced."),
  kept: z.number().int().nonnegative().describe("Messages kept verbatim after the summary."),
  split_turn: z.boolean().describe("The cut fell inside a turn, whose start is summarized."),
  usage: HelperUsageResponse,
  cost: z
    .number()
    .nonnegative()
    .nullable()
    .describe("Dollars the summary cost; null when the summary model has no known price (never a made-up $0)."),
});
export const AbortResponse = z.object({
  aborted: z.boolean().describe("False when the session had no run in progress."),
});

/** The named schemas of the document's `components.schemas`, by name. */
export const NAMED_SCHEMAS = {
  ChatRequest,
  CreateSessionRequest,
  EntryRequest,
  LeafRequest,
  CompactRequest,
  LabelRequest,
  PermissionReplyRequest,
  RevokeApprovalRequest,
  Error: ErrorResponse,
  Health: HealthResponse,
  SessionMeta: SessionMetaSchema,
  SessionPage: SessionPageResponse,
  Snapshot: SnapshotSchema,
  Entry: EntrySchema,
  RunEvent: RunEventSchema,
  Permission: PermissionResponse,
  PermissionList: PermissionListResponse,
  PermissionReply: PermissionReplyResponse,
  ApprovalList: ApprovalListResponse,
  RevokeApproval: RevokeApprovalResponse,
  Abort: AbortResponse,
  Compact: CompactResponse,
  Message: TraceMessageWire,
  AgentStep: AgentStepWire,
  ToolCall: ToolCallWire,
  ToolResult: ToolResultWire,
  MessagePage: MessagePageResponse,
  ToolStats: ToolStatsWire,
  ToolStatsList: ToolStatsResponse,
  FoundToolCall: FoundToolCallWire,
  ToolCallList: ToolCallListResponse,
  TimelineLane: TimelineLaneSchema,
} as const satisfies Record<string, z.ZodType>;
