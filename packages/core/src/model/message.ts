import { z } from "zod";
import { FilePartSchema, ReasoningPartSchema, TextPartSchema, ToolCallPartSchema, ToolResultPartSchema } from "./parts.js";

export const TokenUsageSchema = z.object({
  input: z.number().int().nonnegative().default(0),
  output: z.number().int().nonnegative().default(0),
  reasoning: z.number().int().nonnegative().default(0),
  cacheRead: z.number().int().nonnegative().default(0),
  cacheWrite: z.number().int().nonnegative().default(0),
});

export const MessageErrorSchema = z.looseObject({
  code: z.string().optional(),
  message: z.string(),
});

/** Per-message metadata, shown in traces and totals: what produced it, what it cost, which goal was in focus. */
const messageMeta = {
  goalId: z.string().optional(),
  tokens: TokenUsageSchema.optional(),
  cost: z.number().nonnegative().optional(),
  durationMs: z.number().nonnegative().optional(),
  description: z.string().optional(),
  model: z.string().optional(),
  finishReason: z.string().optional(),
  error: MessageErrorSchema.optional(),
  /** Written by Arbor, not by the user (compaction continuations, reminders); never shown as user text. */
  synthetic: z.boolean().optional(),
  /** A user message posted as a queued request (a cluster's chat): its key, so a retried request finds it written. */
  requestKey: z.string().optional(),
};

export const SystemMessageSchema = z.looseObject({
  role: z.literal("system"),
  content: z.array(TextPartSchema),
  ...messageMeta,
});

export const UserMessageSchema = z.looseObject({
  role: z.literal("user"),
  content: z.array(z.discriminatedUnion("type", [TextPartSchema, FilePartSchema])),
  ...messageMeta,
});

export const AssistantMessageSchema = z.looseObject({
  role: z.literal("assistant"),
  content: z.array(z.discriminatedUnion("type", [TextPartSchema, ReasoningPartSchema, FilePartSchema, ToolCallPartSchema])),
  ...messageMeta,
});

export const ToolMessageSchema = z.looseObject({
  role: z.literal("tool"),
  content: z.array(ToolResultPartSchema),
  ...messageMeta,
  /** Time the call spent waiting for a person to answer a permission ask; `durationMs` leaves it out. */
  permissionWaitMs: z.number().nonnegative().optional(),
});

export const MessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);

export const MessageRoleSchema = z.enum(["system", "user", "assistant", "tool"]);

export type TokenUsage = z.infer<typeof TokenUsageSchema>;
export type MessageRole = z.infer<typeof MessageRoleSchema>;
export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
