import { z } from "zod";

/**
 * Message parts. Objects are loose so fields written by a newer Arbor survive a round trip through
 * an older one instead of being silently stripped.
 */
/**
 * What a provider attached to a part and needs back on later turns (signatures, encrypted reasoning,
 * item ids), keyed by provider: sent back as that part's provider options.
 */
export const ProviderMetadataSchema = z.record(z.string(), z.unknown());

export const TextPartSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
  providerMetadata: ProviderMetadataSchema.optional(),
});

export const ReasoningPartSchema = z.looseObject({
  type: z.literal("reasoning"),
  text: z.string(),
  providerMetadata: ProviderMetadataSchema.optional(),
});

/** Inline base64 `data`, a `url`, or a content-addressed `blob` reference kept out of line. */
export const FilePartSchema = z.looseObject({
  type: z.literal("file"),
  mediaType: z.string().min(1),
  filename: z.string().optional(),
  data: z.string().optional(),
  url: z.string().optional(),
  blob: z.string().optional(),
});

export const ToolCallPartSchema = z.looseObject({
  type: z.literal("tool-call"),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  input: z.unknown(),
  providerMetadata: ProviderMetadataSchema.optional(),
});

export const ToolResultOutputSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), value: z.string() }),
  z.object({ type: z.literal("json"), value: z.unknown() }),
  z.object({ type: z.literal("error-text"), value: z.string() }),
  z.object({ type: z.literal("error-json"), value: z.unknown() }),
]);

export const ToolResultPartSchema = z.looseObject({
  type: z.literal("tool-result"),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  output: ToolResultOutputSchema,
  /**
   * Images and files the tool returned beside its text (inline base64 `data`), sent to the model with
   * the result as file parts of a `content` output; `output` stays the text every other reader uses.
   */
  attachments: z.array(FilePartSchema).optional(),
});

export const PartSchema = z.discriminatedUnion("type", [
  TextPartSchema,
  ReasoningPartSchema,
  FilePartSchema,
  ToolCallPartSchema,
  ToolResultPartSchema,
]);

export type TextPart = z.infer<typeof TextPartSchema>;
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;
export type FilePart = z.infer<typeof FilePartSchema>;
export type ToolCallPart = z.infer<typeof ToolCallPartSchema>;
export type ToolResultOutput = z.infer<typeof ToolResultOutputSchema>;
export type ToolResultPart = z.infer<typeof ToolResultPartSchema>;
export type Part = z.infer<typeof PartSchema>;
