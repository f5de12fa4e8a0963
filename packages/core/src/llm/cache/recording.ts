import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { z } from "zod";
import { decodeValue, encodeValue, type Json } from "./json-value.js";

/**
 * One model call as recorded: the stream parts the provider sent, in order, as JSON. The LLM
 * response cache stores one per request key; a cassette holds one per call of a whole run. Parts
 * that describe a failure or transport noise (`error`, `raw`, `ping`) are never recorded: only a
 * call that finished is.
 */

const id = z.string();
const meta = { providerMetadata: z.json().optional() };
const tokenCount = z.number().int().nonnegative().optional();

const UsageSchema = z.looseObject({
  inputTokens: z.looseObject({ total: tokenCount, noCache: tokenCount, cacheRead: tokenCount, cacheWrite: tokenCount }),
  outputTokens: z.looseObject({ total: tokenCount, text: tokenCount, reasoning: tokenCount }),
});

const FileDataSchema = z.union([
  z.looseObject({ type: z.literal("data"), data: z.union([z.string(), z.looseObject({ $bytes: z.string() })]) }),
  z.looseObject({ type: z.literal("url"), url: z.looseObject({ $url: z.string() }) }),
]);

/** A recorded stream part: checked enough that a replay cannot hand the loop a malformed part. */
export const RecordedPartSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("stream-start"), warnings: z.array(z.json()) }),
  z.looseObject({ type: z.literal("response-metadata") }),
  z.looseObject({ type: z.literal("text-start"), id, ...meta }),
  z.looseObject({ type: z.literal("text-delta"), id, delta: z.string(), ...meta }),
  z.looseObject({ type: z.literal("text-end"), id, ...meta }),
  z.looseObject({ type: z.literal("reasoning-start"), id, ...meta }),
  z.looseObject({ type: z.literal("reasoning-delta"), id, delta: z.string(), ...meta }),
  z.looseObject({ type: z.literal("reasoning-end"), id, ...meta }),
  z.looseObject({ type: z.literal("tool-input-start"), id, toolName: z.string(), ...meta }),
  z.looseObject({ type: z.literal("tool-input-delta"), id, delta: z.string(), ...meta }),
  z.looseObject({ type: z.literal("tool-input-end"), id, ...meta }),
  z.looseObject({ type: z.literal("tool-call"), toolCallId: z.string(), toolName: z.string(), input: z.string(), ...meta }),
  z.looseObject({ type: z.literal("tool-result"), toolCallId: z.string(), toolName: z.string(), result: z.json(), ...meta }),
  z.looseObject({ type: z.literal("tool-approval-request"), approvalId: z.string(), toolCallId: z.string(), ...meta }),
  z.looseObject({ type: z.literal("file"), mediaType: z.string(), data: FileDataSchema, ...meta }),
  z.looseObject({ type: z.literal("reasoning-file"), mediaType: z.string(), data: FileDataSchema, ...meta }),
  z.looseObject({ type: z.literal("source"), sourceType: z.string(), id, ...meta }),
  z.looseObject({ type: z.literal("custom"), kind: z.string(), ...meta }),
  z.looseObject({
    type: z.literal("finish"),
    usage: UsageSchema,
    finishReason: z.looseObject({ unified: z.string(), raw: z.string().optional() }),
    ...meta,
  }),
]);

export const RecordingSchema = z.strictObject({
  /** The request key: `cacheKey` in the LLM cache, `replayKey` in a cassette. */
  key: z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256 hex digest"),
  /** `provider/model` that answered. */
  model: z.string().min(1),
  /** ISO-8601 time of the call. */
  createdAt: z.iso.datetime({ offset: true }),
  /** Milliseconds from the call to its first part; a cassette may replay at this pace. */
  latencyMs: z.number().int().nonnegative().optional(),
  /** What the request's last message was, for errors about a replay that diverges. */
  request: z.strictObject({ messages: z.number().int().nonnegative(), last: z.string() }).optional(),
  parts: z.array(RecordedPartSchema).min(1),
});

export type RecordedPart = z.infer<typeof RecordedPartSchema>;
export type Recording = z.infer<typeof RecordingSchema>;

/** Types never recorded: they say nothing a replay should repeat. */
const UNRECORDED = new Set<LanguageModelV4StreamPart["type"]>(["error", "raw", "ping"]);

/** Whether a part belongs in a recording (failures and transport noise do not). */
export function isRecordable(part: LanguageModelV4StreamPart): boolean {
  return !UNRECORDED.has(part.type);
}

/** A stream part as recorded JSON. */
export function encodePart(part: LanguageModelV4StreamPart): RecordedPart {
  return encodeValue(part) as unknown as RecordedPart;
}

/** A recorded part as the stream part the provider sent (Dates, bytes and URLs restored). */
export function decodePart(part: RecordedPart): LanguageModelV4StreamPart {
  return decodeValue(part as unknown as Json) as LanguageModelV4StreamPart;
}
