import { z } from "zod";

/** Codex CLI rollout lines (`{timestamp, type, payload}`); loose so newer fields pass through. */
export const CodexLineSchema = z.looseObject({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.looseObject({ type: z.string().optional() }).optional(),
});

export const CodexSessionMetaSchema = z.looseObject({
  id: z.string().min(1),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  cli_version: z.string().optional(),
  originator: z.string().optional(),
  model_provider: z.string().optional(),
  base_instructions: z
    .union([z.string(), z.looseObject({ text: z.string().optional() })])
    .nullable()
    .optional(),
});

export const CodexTurnContextSchema = z.looseObject({
  model: z.string().optional(),
  effort: z.string().nullable().optional(),
  cwd: z.string().optional(),
});

const ContentItem = z.looseObject({ type: z.string(), text: z.string().optional(), image_url: z.string().optional() });

export const CodexMessageSchema = z.looseObject({
  type: z.literal("message"),
  role: z.string(),
  content: z.array(ContentItem),
});

export const CodexReasoningSchema = z.looseObject({
  type: z.literal("reasoning"),
  summary: z.array(z.looseObject({ text: z.string().optional() })).optional(),
  content: z
    .array(z.looseObject({ text: z.string().optional() }))
    .nullable()
    .optional(),
  encrypted_content: z.string().nullable().optional(),
});

export const CodexFunctionCallSchema = z.looseObject({
  type: z.enum(["function_call", "custom_tool_call"]),
  name: z.string().min(1),
  call_id: z.string().min(1),
  arguments: z.string().optional(),
  input: z.string().optional(),
});

export const CodexCallOutputSchema = z.looseObject({
  type: z.enum(["function_call_output", "custom_tool_call_output"]),
  call_id: z.string().min(1),
  output: z.unknown(),
});

export const CodexWebSearchSchema = z.looseObject({
  type: z.literal("web_search_call"),
  status: z.string().optional(),
  action: z.unknown().optional(),
});

export const CodexCompactedSchema = z.looseObject({ message: z.string() });

export const CodexTokenCountSchema = z.looseObject({
  type: z.literal("token_count"),
  info: z
    .looseObject({
      last_token_usage: z
        .looseObject({
          input_tokens: z.number().optional(),
          cached_input_tokens: z.number().optional(),
          output_tokens: z.number().optional(),
          reasoning_output_tokens: z.number().optional(),
        })
        .optional(),
    })
    .nullable()
    .optional(),
});
