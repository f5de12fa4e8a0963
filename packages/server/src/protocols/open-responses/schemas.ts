import { z } from "zod";

/** Text a message or a function call's output carries: a string or `input_text`/`output_text` parts. */
const TextContent = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.enum(["input_text", "output_text"]), text: z.string() })),
]);

/** A message item (`type` may be left out, as the easy form does). */
export const MessageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "system", "developer", "assistant"]),
  content: TextContent,
});

/** The client's output for a `function_call` the previous response returned. */
export const FunctionCallOutputItem = z.looseObject({
  type: z.literal("function_call_output"),
  call_id: z.string().min(1),
  output: TextContent,
});

/** The client's answer to an `mcp_approval_request` (a permission ask or a plan) the previous response returned. */
export const ApprovalResponseItem = z.looseObject({
  type: z.literal("mcp_approval_response"),
  approval_request_id: z.string().min(1),
  approve: z.boolean(),
  reason: z.string().optional(),
});

/** Any input item, told apart by `type` in the route (each is parsed with its own schema there). */
export const InputItem = z.looseObject({ type: z.string().optional() });

/** A function tool the client defines and runs itself. */
export const FunctionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a function name is 1-64 characters from A-Z a-z 0-9 _ -"),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** `POST /v1/responses`: the parameters Arbor honours; any other is refused rather than ignored. */
export const CreateResponseBody = z.strictObject({
  /** An agent (as `GET /v1/models` lists them), or `provider/model` for the default agent. */
  model: z.string().min(1).optional(),
  input: z.union([z.string(), z.array(InputItem)]).optional(),
  instructions: z.string().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  /** An Arbor session id: the response continues from its leaf (a session started by any door, ACP's too). */
  conversation: z.union([z.string().min(1), z.looseObject({ id: z.string().min(1) })]).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  tool_choice: z.literal("auto").optional(),
  parallel_tool_calls: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).nullish(),
      summary: z.string().nullish(),
    })
    .nullish(),
  max_turns: z.number().int().positive().optional(),
  // Accepted and left as they are: they change nothing Arbor does (plain text is its only output format).
  text: z.strictObject({ format: z.strictObject({ type: z.literal("text") }).optional() }).nullish(),
  include: z.array(z.string()).nullish(),
  truncation: z.enum(["auto", "disabled"]).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type CreateResponseBody = z.output<typeof CreateResponseBody>;

/** `POST /v1/responses/compact`: Arbor's compaction of the conversation a response ends. */
export const CompactBody = z.strictObject({
  model: z.string().min(1).optional(),
  previous_response_id: z.string().min(1),
  input: z.union([z.string(), z.array(InputItem)]).optional(),
  instructions: z.string().nullish(),
});

/** The error body every OpenAI client reads. */
export const OpenAiErrorBody = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
});

/** A response object, loosely: its items follow the Responses API (see the protocol's docs page). */
export const ResponseObject = z.looseObject({
  id: z.string(),
  object: z.literal("response"),
  status: z.enum(["completed", "failed", "in_progress", "incomplete"]),
  output: z.array(z.looseObject({ type: z.string() })),
});

export const ResponseParams = z.object({ id: z.string().min(1).max(1000) });
