import { z } from "zod";

/**
 * pi's session lines as far as Arbor reads them. Objects are loose: fields pi adds later pass
 * through untouched instead of failing the line.
 */
export const PiHeaderSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number().int().optional(),
  id: z.string().min(1),
  timestamp: z.string(),
  cwd: z.string().optional(),
  parentSession: z.string().optional(),
  provider: z.string().optional(),
  modelId: z.string().optional(),
  thinkingLevel: z.string().optional(),
});

export const PiTextSchema = z.looseObject({ type: z.literal("text"), text: z.string(), textSignature: z.string().optional() });
export const PiImageSchema = z.looseObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
export const PiThinkingSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  thinkingSignature: z.string().optional(),
  redacted: z.boolean().optional(),
});
export const PiToolCallSchema = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.unknown(),
});

const UserBlock = z.discriminatedUnion("type", [PiTextSchema, PiImageSchema]);
const AssistantBlock = z.discriminatedUnion("type", [PiTextSchema, PiThinkingSchema, PiToolCallSchema, PiImageSchema]);

export const PiUsageSchema = z.looseObject({
  input: z.number().optional(),
  output: z.number().optional(),
  cacheRead: z.number().optional(),
  cacheWrite: z.number().optional(),
  totalTokens: z.number().optional(),
  cost: z.looseObject({ total: z.number().optional() }).optional(),
});

export const PiUserMessageSchema = z.looseObject({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(UserBlock)]),
  timestamp: z.number().optional(),
});

export const PiAssistantMessageSchema = z.looseObject({
  role: z.literal("assistant"),
  content: z.array(AssistantBlock),
  api: z.string().optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  usage: PiUsageSchema.optional(),
  stopReason: z.string().optional(),
  errorMessage: z.string().optional(),
  responseId: z.string().optional(),
  timestamp: z.number().optional(),
});

export const PiToolResultMessageSchema = z.looseObject({
  role: z.literal("toolResult"),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  content: z.array(UserBlock),
  isError: z.boolean().optional(),
  details: z.unknown().optional(),
  timestamp: z.number().optional(),
});

export const PiBashExecutionSchema = z.looseObject({
  role: z.literal("bashExecution"),
  command: z.string(),
  output: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  excludeFromContext: z.boolean().optional(),
  timestamp: z.number().optional(),
});

export const PiCustomMessageSchema = z.looseObject({
  role: z.enum(["custom", "hookMessage"]),
  customType: z.string().min(1),
  content: z.union([z.string(), z.array(UserBlock)]),
  display: z.boolean().optional(),
  details: z.unknown().optional(),
  timestamp: z.number().optional(),
});

const tree = { id: z.string().min(1).optional(), parentId: z.string().nullable().optional(), timestamp: z.string().optional() };

export const PiEntrySchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message"), ...tree, message: z.looseObject({ role: z.string() }) }),
  z.looseObject({ type: z.literal("model_change"), ...tree, provider: z.string(), modelId: z.string() }),
  z.looseObject({ type: z.literal("thinking_level_change"), ...tree, thinkingLevel: z.string() }),
  z.looseObject({
    type: z.literal("compaction"),
    ...tree,
    summary: z.string(),
    firstKeptEntryId: z.string().nullable().optional(),
    firstKeptEntryIndex: z.number().int().optional(),
    tokensBefore: z.number().optional(),
    details: z.unknown().optional(),
  }),
  z.looseObject({
    type: z.literal("branch_summary"),
    ...tree,
    fromId: z.string(),
    summary: z.string(),
    details: z.unknown().optional(),
  }),
  z.looseObject({ type: z.literal("label"), ...tree, targetId: z.string(), label: z.string().optional() }),
  z.looseObject({ type: z.literal("session_info"), ...tree, name: z.string().optional() }),
  z.looseObject({ type: z.literal("custom"), ...tree, customType: z.string().min(1), data: z.unknown().optional() }),
  z.looseObject({
    type: z.literal("custom_message"),
    ...tree,
    customType: z.string().min(1),
    content: z.union([z.string(), z.array(UserBlock)]),
    display: z.boolean().optional(),
    details: z.unknown().optional(),
  }),
]);

export type PiHeader = z.infer<typeof PiHeaderSchema>;
export type PiEntry = z.infer<typeof PiEntrySchema>;
export type PiUserBlock = z.infer<typeof UserBlock>;
export type PiAssistantBlock = z.infer<typeof AssistantBlock>;
export const PI_ENTRY_TYPES = PiEntrySchema.options.map((o) => o.shape.type.value);
