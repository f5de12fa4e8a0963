import { z } from "zod";

/**
 * The run stream. Field names are snake_case and must not change,
 * because they are the wire format of `POST /api/chat` and `arbor run --json`. Arbor adds
 * `session_id` to every event, `call_id` to tool events (to pair a start with its end when tools run
 * concurrently), `is_error` on `tool_end`, and the `reasoning` and `permission_request` events.
 */
const base = { session_id: z.string() };

export const TokenEventSchema = z.object({ type: z.literal("token"), ...base, content: z.string() });
export const ReasoningEventSchema = z.object({ type: z.literal("reasoning"), ...base, content: z.string() });
export const ToolStartEventSchema = z.object({
  type: z.literal("tool_start"),
  ...base,
  call_id: z.string(),
  tool: z.string(),
  /** The tool input as JSON text. */
  input: z.string(),
  motivation: z.string(),
});
export const ToolEndEventSchema = z.object({
  type: z.literal("tool_end"),
  ...base,
  call_id: z.string(),
  tool: z.string(),
  output: z.string(),
  cached: z.boolean(),
  is_error: z.boolean(),
  /** The tool's own time: a wait for a permission answer is not in it (see `permission_wait_ms`). */
  duration_ms: z.number().int().nonnegative().optional(),
  permission_wait_ms: z.number().int().nonnegative().optional(),
});
/** A running tool's progress report (an MCP server's progress notification, say); shown live, never stored. */
export const ToolProgressEventSchema = z.object({
  type: z.literal("tool_progress"),
  ...base,
  call_id: z.string(),
  tool: z.string(),
  title: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const LlmStartEventSchema = z.object({
  type: z.literal("llm_start"),
  ...base,
  call_id: z.string(),
  node: z.string(),
  model: z.string(),
  input: z.string(),
  motivation: z.string(),
  /**
   * The session entry the call continues from (the path's leaf when it began): what the run had
   * written by then, so a reader shows the session as it stood at this step, however late it reads.
   */
  leaf_id: z.string().optional(),
});
export const LlmEndEventSchema = z.object({
  type: z.literal("llm_end"),
  ...base,
  call_id: z.string(),
  node: z.string(),
  model: z.string(),
  duration_ms: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  total_tokens: z.number().int().nonnegative().optional(),
  input: z.string(),
  output: z.string(),
  /** Set when the runtime has an LLM response cache: true when the answer was replayed from it. */
  cached: z.boolean().optional(),
});
/** A run's token counts on the wire. */
export const RunUsageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  reasoning: z.number().int().nonnegative(),
  cache_read: z.number().int().nonnegative(),
  cache_write: z.number().int().nonnegative(),
});
/** A run's token counts as the wire names them. */
export function runUsageOnWire(usage: {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}): z.infer<typeof RunUsageSchema> {
  return {
    input: usage.input,
    output: usage.output,
    reasoning: usage.reasoning,
    cache_read: usage.cacheRead,
    cache_write: usage.cacheWrite,
  };
}
export const DoneEventSchema = z.object({
  type: z.literal("done"),
  ...base,
  /**
   * The run's outcome as its result has it, whoever drove it (a run taken over after a crash too);
   * optional only so logs written before these fields still parse.
   */
  status: z.literal("done").optional(),
  /** The final assistant text. */
  text: z.string().optional(),
  /** Model calls this run made, and their tokens and cost (dollars; priced calls only when `cost_known` is false). */
  steps: z.number().int().nonnegative().optional(),
  usage: RunUsageSchema.optional(),
  cost: z.number().nonnegative().optional(),
  cost_known: z.literal(false).optional(),
  /** Set when the run stopped short and says why (a spent budget): `budget`. */
  stop_reason: z.string().optional(),
  /** Why it stopped, for the user. */
  message: z.string().optional(),
});
export const ErrorEventSchema = z.object({
  type: z.literal("error"),
  ...base,
  content: z.string(),
  /** The ArborError code or provider error class, for clients that branch on it. */
  code: z.string().optional(),
});

const PlanStepSchema = z.looseObject({ id: z.union([z.string(), z.number()]), title: z.string(), status: z.string() });

export const PlanCreatedEventSchema = z.object({
  type: z.literal("plan_created"),
  ...base,
  plan: z.object({ plan_id: z.string(), title: z.string(), steps: z.array(PlanStepSchema) }),
});
export const PlanUpdatedEventSchema = z.object({
  type: z.literal("plan_updated"),
  ...base,
  plan_id: z.string(),
  step_id: z.union([z.string(), z.number()]),
  status: z.string(),
});
export const PlanRevisedEventSchema = z.object({
  type: z.literal("plan_revised"),
  ...base,
  plan_id: z.string(),
  revised_steps: z.array(PlanStepSchema),
  keep_completed: z.number().int().nonnegative(),
  reason: z.string(),
});
export const PlanApprovalRequestEventSchema = z.object({
  type: z.literal("plan_approval_request"),
  ...base,
  plan_id: z.string(),
  title: z.string(),
  steps: z.array(PlanStepSchema),
});
export const PermissionRequestEventSchema = z.object({
  type: z.literal("permission_request"),
  ...base,
  /** Answer with `POST /api/permissions/:id` or the runtime's reply function. */
  id: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  /** What an "always" answer approves, exactly as written (absent: `patterns`); with `*` only for a folder. */
  always: z.array(z.string()).optional(),
  tool: z.string().optional(),
  call_id: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
/** The agent asked its user a question (the `question` tool); the run waits for the answer. */
export const QuestionRequestEventSchema = z.object({
  type: z.literal("question_request"),
  ...base,
  /** Answer with `POST /api/asks/:id`, `arbor approve <id> --answer …` or `runtime.asks.answerQuestion`. */
  id: z.string(),
  question: z.string(),
  header: z.string().optional(),
  /** The choices; absent for a free-text question. */
  options: z.array(z.object({ label: z.string(), description: z.string().optional() })).optional(),
  /** Several options may be chosen. */
  multiple: z.boolean(),
  /** The user may answer in their own words (always, without options). */
  custom: z.boolean(),
  call_id: z.string().optional(),
});

/**
 * An MCP server asked the person for input during one of its tool calls (an elicitation: a form to
 * fill in, or a page of the server's to open); the call waits for the answer. The same durable ask
 * `GET /api/asks` lists as kind `elicitation`.
 */
export const ElicitationRequestEventSchema = z.object({
  type: z.literal("elicitation_request"),
  ...base,
  /** Answer with `POST /api/asks/:id` (`{"allow": true, "content": {…}}` or `{"allow": false}`) or `runtime.asks.answer`. */
  id: z.string(),
  /** The MCP server that asks, as named in `mcp.servers`. */
  server: z.string(),
  call_id: z.string().optional(),
  message: z.string(),
  /**
   * `login`: the server needs the user to log in (an `mcp_login` ask): `url` is the authorization
   * server's login page, and the browser's return to Arbor's callback answers it (decline with `{"allow": false}`).
   */
  mode: z.enum(["form", "url", "login"]),
  /** Form mode: the fields asked for, a flat object schema (`properties`, `required`). */
  requested_schema: z.record(z.string(), z.unknown()).optional(),
  /** URL mode: the page to open, and the server's id for this elicitation. */
  url: z.string().optional(),
  elicitation_id: z.string().optional(),
});
/**
 * An elicitation ended: answered (`accept`, `decline`), or `cancel` (the run stopped, the server
 * withdrew it, or nobody answered in time). What a form was filled in with stays in the ask's record.
 */
export const ElicitationAnsweredEventSchema = z.object({
  type: z.literal("elicitation_answered"),
  ...base,
  id: z.string(),
  server: z.string(),
  call_id: z.string().optional(),
  action: z.enum(["accept", "decline", "cancel"]),
});

export const RunEventSchema = z.discriminatedUnion("type", [
  TokenEventSchema,
  ReasoningEventSchema,
  ToolStartEventSchema,
  ToolEndEventSchema,
  ToolProgressEventSchema,
  LlmStartEventSchema,
  LlmEndEventSchema,
  DoneEventSchema,
  ErrorEventSchema,
  PlanCreatedEventSchema,
  PlanUpdatedEventSchema,
  PlanRevisedEventSchema,
  PlanApprovalRequestEventSchema,
  PermissionRequestEventSchema,
  QuestionRequestEventSchema,
  ElicitationRequestEventSchema,
  ElicitationAnsweredEventSchema,
]);

export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent["type"];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** Event payloads as the loop writes them; `session_id` is added in one place. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "session_id"> : never) : never;
