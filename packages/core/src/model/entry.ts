import { z } from "zod";
import { EntryIdSchema, SessionIdSchema } from "./ids.js";
import { MessageSchema } from "./message.js";
import { FilePartSchema, TextPartSchema } from "./parts.js";
import { TimestampSchema } from "./time.js";

/** The named thinking levels, from none to the most a provider offers. */
export const ThinkingLevelNameSchema = z.enum(["off", "minimal", "low", "medium", "high", "xhigh"]);
export type ThinkingLevelName = z.infer<typeof ThinkingLevelNameSchema>;

/**
 * How hard the model thinks: a named level, or a budget of reasoning tokens for the providers that
 * take one (Anthropic, Gemini, Bedrock); the others get the level that budget falls in.
 */
export const ThinkingLevelSchema = z.union([ThinkingLevelNameSchema, z.number().int().positive()]);
export type ThinkingLevel = z.infer<typeof ThinkingLevelSchema>;

/** What a thinking level may be, for messages that refuse one. */
export const THINKING_LEVEL_HINT = `${ThinkingLevelNameSchema.options.join(", ")}, or a token budget such as 8000`;

/** A thinking level as typed on a command line or in an environment variable: a name or a whole number. */
export function parseThinkingLevel(text: string): ThinkingLevel | undefined {
  const trimmed = text.trim();
  const parsed = ThinkingLevelSchema.safeParse(/^\d+$/.test(trimmed) ? Number(trimmed) : trimmed);
  return parsed.success ? parsed.data : undefined;
}

/** `provider/model`, e.g. `openai/gpt-4o` or `openai-compatible/llama3`. */
export const ModelRefSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]*\/.+$/, "expected provider/model");

export const SubagentStatusSchema = z.enum(["completed", "failed", "aborted", "timeout", "max_turns", "budget"]);

/** The canonical projection of a sub-agent result at the session-tree boundary: what a parent and a client read of it. */
export const SubagentProjectionSchema = z.looseObject({
  summary: z.string().optional(),
  status: SubagentStatusSchema.optional(),
  diagnostics: z.looseObject({
    selectedSource: z.string(),
    inputSources: z.array(z.string()),
    fallbackUsed: z.boolean(),
  }),
});

export const SubagentResultMetadataSchema = z.looseObject({
  processEvents: z.array(z.unknown()).default([]),
  evidenceSummaries: z.array(z.unknown()).default([]),
  toolRuntimeRoutes: z.array(z.unknown()).default([]),
  subagentProjection: SubagentProjectionSchema.optional(),
});

/** The fields each entry type adds to the common `id`, `parentId`, `type`, `timestamp`. */
const fields = {
  message: { message: MessageSchema },
  thinking_level_change: { thinkingLevel: ThinkingLevelSchema },
  model_change: { model: ModelRefSchema },
  compaction: {
    summary: z.string(),
    /** First entry on the path that stays in context after this compaction; null keeps nothing. */
    firstKeptEntryId: EntryIdSchema.nullable(),
    tokensBefore: z.number().int().nonnegative(),
    details: z.unknown().optional(),
  },
  branch_summary: {
    /** The leaf of the branch that was left. */
    fromId: EntryIdSchema,
    summary: z.string(),
    details: z.unknown().optional(),
  },
  custom: { customType: z.string().min(1), data: z.unknown().optional() },
  custom_message: {
    customType: z.string().min(1),
    content: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextPartSchema, FilePartSchema]))]),
    display: z.boolean().default(true),
    /** Sent to the model (as a system reminder) unless false. */
    includeInContext: z.boolean().default(true),
    details: z.unknown().optional(),
  },
  label: {
    targetId: EntryIdSchema,
    /** Absent clears the label. */
    label: z.string().min(1).max(200).optional(),
  },
  session_info: { title: z.string().max(500).optional(), info: z.record(z.string(), z.unknown()).optional() },
  subagent_batch: {
    batchId: z.string().min(1),
    mode: z.enum(["explore", "delegate", "plan_step"]),
    goalId: z.string().optional(),
    /** The parent's tool call that started the batch, so a resumed parent finds the batch its call had begun. */
    callId: z.string().optional(),
    tasks: z.array(z.looseObject({ task: z.string(), subSessionId: SessionIdSchema.optional() })),
  },
  subagent_result: {
    batchId: z.string().min(1),
    subSessionId: SessionIdSchema,
    status: SubagentStatusSchema,
    summary: z.string(),
    metadata: SubagentResultMetadataSchema.default({ processEvents: [], evidenceSummaries: [], toolRuntimeRoutes: [] }),
  },
} as const;

type Fields = typeof fields;
export type EntryType = keyof Fields;
export const ENTRY_TYPES = Object.keys(fields) as EntryType[];

const stored = { id: EntryIdSchema, parentId: EntryIdSchema.nullable(), timestamp: TimestampSchema };
const input = {
  id: EntryIdSchema.optional(),
  parentId: EntryIdSchema.nullable().optional(),
  timestamp: TimestampSchema.optional(),
};

function variant<T extends EntryType>(type: T) {
  return {
    stored: z.looseObject({ type: z.literal(type), ...stored, ...fields[type] }),
    input: z.looseObject({ type: z.literal(type), ...input, ...fields[type] }),
  };
}

const V = {
  message: variant("message"),
  thinking_level_change: variant("thinking_level_change"),
  model_change: variant("model_change"),
  compaction: variant("compaction"),
  branch_summary: variant("branch_summary"),
  custom: variant("custom"),
  custom_message: variant("custom_message"),
  label: variant("label"),
  session_info: variant("session_info"),
  subagent_batch: variant("subagent_batch"),
  subagent_result: variant("subagent_result"),
};

export const MessageEntrySchema = V.message.stored;
export const ThinkingLevelChangeEntrySchema = V.thinking_level_change.stored;
export const ModelChangeEntrySchema = V.model_change.stored;
export const CompactionEntrySchema = V.compaction.stored;
export const BranchSummaryEntrySchema = V.branch_summary.stored;
export const CustomEntrySchema = V.custom.stored;
export const CustomMessageEntrySchema = V.custom_message.stored;
export const LabelEntrySchema = V.label.stored;
export const SessionInfoEntrySchema = V.session_info.stored;
export const SubagentBatchEntrySchema = V.subagent_batch.stored;
export const SubagentResultEntrySchema = V.subagent_result.stored;

export const EntrySchema = z.discriminatedUnion("type", [
  MessageEntrySchema,
  ThinkingLevelChangeEntrySchema,
  ModelChangeEntrySchema,
  CompactionEntrySchema,
  BranchSummaryEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  LabelEntrySchema,
  SessionInfoEntrySchema,
  SubagentBatchEntrySchema,
  SubagentResultEntrySchema,
]);

/** What `appendEntry` accepts: an entry whose id, parentId and timestamp the store may fill in. */
export const EntryInputSchema = z.discriminatedUnion("type", [
  V.message.input,
  V.thinking_level_change.input,
  V.model_change.input,
  V.compaction.input,
  V.branch_summary.input,
  V.custom.input,
  V.custom_message.input,
  V.label.input,
  V.session_info.input,
  V.subagent_batch.input,
  V.subagent_result.input,
]);

export type MessageEntry = z.infer<typeof MessageEntrySchema>;
export type ThinkingLevelChangeEntry = z.infer<typeof ThinkingLevelChangeEntrySchema>;
export type ModelChangeEntry = z.infer<typeof ModelChangeEntrySchema>;
export type CompactionEntry = z.infer<typeof CompactionEntrySchema>;
export type BranchSummaryEntry = z.infer<typeof BranchSummaryEntrySchema>;
export type CustomEntry = z.infer<typeof CustomEntrySchema>;
export type CustomMessageEntry = z.infer<typeof CustomMessageEntrySchema>;
export type LabelEntry = z.infer<typeof LabelEntrySchema>;
export type SessionInfoEntry = z.infer<typeof SessionInfoEntrySchema>;
export type SubagentBatchEntry = z.infer<typeof SubagentBatchEntrySchema>;
export type SubagentResultEntry = z.infer<typeof SubagentResultEntrySchema>;
export type SubagentResultMetadata = z.infer<typeof SubagentResultMetadataSchema>;
export type SubagentStatus = z.infer<typeof SubagentStatusSchema>;
export type Entry = z.infer<typeof EntrySchema>;
export type EntryInput = z.input<typeof EntryInputSchema>;

export function isEntryType(value: unknown): value is EntryType {
  return typeof value === "string" && Object.hasOwn(fields, value);
}
