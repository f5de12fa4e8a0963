import { z } from "zod";
import { EntryIdSchema } from "../../model/ids.js";
import { TimestampSchema } from "../../model/time.js";

/**
 * Lines of entries.jsonl are either an entry or a control record marked by `$op`. Control records
 * keep the file append-only: a leaf move, an entry update and the start of a multi-entry batch are
 * appended like entries instead of rewriting anything.
 */
export const LeafRecordSchema = z.object({ $op: z.literal("leaf"), leafId: EntryIdSchema.nullable(), ts: TimestampSchema });
export const UpdateRecordSchema = z.object({ $op: z.literal("update"), entry: z.record(z.string(), z.unknown()) });
/** The next `n` lines are one appendEntries call: a load drops them unless all `n` are complete. */
export const BatchRecordSchema = z.object({ $op: z.literal("batch"), n: z.number().int().min(2) });

export const ControlRecordSchema = z.discriminatedUnion("$op", [LeafRecordSchema, UpdateRecordSchema, BatchRecordSchema]);
export type ControlRecord = z.infer<typeof ControlRecordSchema>;

export function leafRecord(leafId: string | null, ts: string): string {
  return `${JSON.stringify({ $op: "leaf", leafId, ts })}\n`;
}

export function updateRecord(entryJson: string): string {
  return `{"$op":"update","entry":${entryJson}}\n`;
}

export function batchRecord(n: number): string {
  return `{"$op":"batch","n":${n}}\n`;
}
