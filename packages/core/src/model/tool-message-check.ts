/*
 * A run writes a tool message for every call; checked against ToolMessageSchema through zod that was
 * a sixth of an append's CPU. The loop's own tool messages have one shape (text results, no token
 * counts): for that shape this says, by plain tests, what the schema would. Anything else, or
 * anything in doubt, is left to the schema.
 */

const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === "string";
const isNonNegative = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0;
const isOptionalNonNegative = (v: unknown): boolean => v === undefined || isNonNegative(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A text result part with no attachments: fields the schema keeps as given (it is a loose object). */
function isPlainResultPart(part: unknown): boolean {
  if (!isRecord(part) || part.type !== "tool-result" || part.attachments !== undefined) return false;
  const { toolCallId, toolName, output } = part;
  if (typeof toolCallId !== "string" || toolCallId.length === 0) return false;
  if (typeof toolName !== "string" || toolName.length === 0) return false;
  // The output's schema is a closed object that drops other keys: only exactly `type` and `value` is unchanged.
  if (!isRecord(output) || (output.type !== "text" && output.type !== "error-text")) return false;
  return typeof output.value === "string" && ownKeyCount(output) === 2;
}

/** `Object.keys(value).length`, without the array: this runs for every tool result a run stores. */
function ownKeyCount(value: object): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}

/** The optional text fields every message may carry. */
const TEXT_FIELDS = ["goalId", "description", "model", "finishReason", "requestKey"] as const;

/**
 * True only when `message` is a tool message that ToolMessageSchema accepts and would give back
 * unchanged; false says nothing either way (a message with token counts, attachments or JSON
 * output is for the schema to judge).
 */
export function passesToolMessageSchema(message: unknown): boolean {
  if (!isRecord(message) || message.role !== "tool" || !Array.isArray(message.content)) return false;
  for (const part of message.content) if (!isPlainResultPart(part)) return false;
  // The fields every message may carry; `tokens` has defaults the schema fills in, so it is not plain.
  const m = message;
  if (m.tokens !== undefined || (m.synthetic !== undefined && typeof m.synthetic !== "boolean")) return false;
  for (const key of TEXT_FIELDS) {
    if (!isOptionalString(m[key])) return false;
  }
  if (!isOptionalNonNegative(m.cost) || !isOptionalNonNegative(m.durationMs) || !isOptionalNonNegative(m.permissionWaitMs))
    return false;
  const error = m.error;
  return error === undefined || (isRecord(error) && typeof error.message === "string" && isOptionalString(error.code));
}
