import { z } from "zod";

/** Claude Code transcript lines as far as Arbor reads them; loose, since the format is internal to the CLI. */
const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const ImageBlock = z.looseObject({
  type: z.literal("image"),
  source: z.looseObject({
    type: z.string(),
    media_type: z.string().optional(),
    data: z.string().optional(),
    url: z.string().optional(),
  }),
});
const ThinkingBlock = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() });
const RedactedThinkingBlock = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() });
const ToolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.union([TextBlock, ImageBlock, z.looseObject({ type: z.string() })]))]).optional(),
  is_error: z.boolean().optional(),
});
const OtherBlock = z.looseObject({ type: z.string() });

export const ClaudeBlockSchema = z.union([
  TextBlock,
  ImageBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock,
  OtherBlock,
]);
export type ClaudeBlock = z.infer<typeof ClaudeBlockSchema>;

export const ClaudeUsageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
});

const envelope = {
  uuid: z.string().min(1),
  parentUuid: z.string().nullable().optional(),
  sessionId: z.string().optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  version: z.string().optional(),
  isSidechain: z.boolean().optional(),
  agentId: z.string().optional(),
};

export const ClaudeUserLineSchema = z.looseObject({
  type: z.literal("user"),
  ...envelope,
  message: z.looseObject({ role: z.literal("user"), content: z.union([z.string(), z.array(ClaudeBlockSchema)]) }),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  toolUseResult: z.unknown().optional(),
});

export const ClaudeAssistantLineSchema = z.looseObject({
  type: z.literal("assistant"),
  ...envelope,
  message: z.looseObject({
    id: z.string().optional(),
    role: z.literal("assistant"),
    model: z.string().optional(),
    content: z.array(ClaudeBlockSchema),
    stop_reason: z.string().nullable().optional(),
    usage: ClaudeUsageSchema.optional(),
  }),
  isApiErrorMessage: z.boolean().optional(),
});

export const ClaudeSystemLineSchema = z.looseObject({
  type: z.literal("system"),
  ...envelope,
  subtype: z.string().optional(),
  content: z.string().optional(),
  logicalParentUuid: z.string().nullable().optional(),
  compactMetadata: z.looseObject({ trigger: z.string().optional(), preTokens: z.number().optional() }).optional(),
});

export const ClaudeProgressLineSchema = z.looseObject({
  type: z.literal("progress"),
  uuid: z.string().optional(),
  parentUuid: z.string().nullable().optional(),
  parentToolUseID: z.string().optional(),
  data: z.looseObject({
    type: z.string(),
    agentId: z.string().optional(),
    prompt: z.string().optional(),
    message: z
      .looseObject({ type: z.string(), uuid: z.string().optional(), timestamp: z.string().optional(), message: z.unknown() })
      .optional(),
  }),
});

export const ClaudeSummaryLineSchema = z.looseObject({
  type: z.literal("summary"),
  summary: z.string(),
  leafUuid: z.string().optional(),
});

export type ClaudeUserLine = z.infer<typeof ClaudeUserLineSchema>;
export type ClaudeAssistantLine = z.infer<typeof ClaudeAssistantLineSchema>;
export type ClaudeSystemLine = z.infer<typeof ClaudeSystemLineSchema>;
export type ClaudeProgressLine = z.infer<typeof ClaudeProgressLineSchema>;
export type ClaudeLine = ClaudeUserLine | ClaudeAssistantLine | ClaudeSystemLine;

/** A conversation line (user, assistant, system), or undefined for anything else. */
export function conversationLine(value: unknown): ClaudeLine | undefined {
  const type = (value as { type?: unknown })?.type;
  const schema =
    type === "user"
      ? ClaudeUserLineSchema
      : type === "assistant"
        ? ClaudeAssistantLineSchema
        : type === "system"
          ? ClaudeSystemLineSchema
          : undefined;
  const r = schema?.safeParse(value);
  return r?.success ? (r.data as ClaudeLine) : undefined;
}
