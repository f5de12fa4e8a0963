import { z } from "zod";
import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import { TimestampSchema } from "../model/time.js";

/**
 * The field a purged entry carries. Deleting a message erases it (GDPR-style): the entry stays where
 * it was in the tree — `id`, `parentId`, `type`, `timestamp` and the message's role, so every
 * branch, label and reference keeps its shape — and everything it said goes.
 */
export const PURGED_FIELD = "purged";

export const PurgeMarkSchema = z.object({
  /** When the content was erased. */
  at: TimestampSchema,
  /** The trace message whose deletion erased it. */
  messageId: z.string().min(1).optional(),
});
export type PurgeMark = z.infer<typeof PurgeMarkSchema>;

/** The mark of a purged entry, or undefined when the entry still holds its content. */
export function purgeMarkOf(entry: unknown): PurgeMark | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  const mark = (entry as Record<string, unknown>)[PURGED_FIELD];
  // Most entries have no mark: the schema would refuse undefined, but only after building an error.
  if (mark === undefined) return undefined;
  const parsed = PurgeMarkSchema.safeParse(mark);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The tombstone that replaces `entry`: the fields that place it in the tree and nothing it said.
 * Only message entries are purged (a trace message is made of them); anything else is refused, so
 * a purge can never quietly blank a compaction or a label another entry depends on. Pure.
 */
export function tombstoneOf(entry: Entry, mark: PurgeMark): Entry {
  if (entry.type !== "message") {
    throw new ArborError(
      "invalid_input",
      `Entry ${entry.id} is a ${entry.type} entry; only message entries can be erased (delete the message it belongs to).`,
    );
  }
  // What it cost stays (no one's words are in a token count), so the session's totals do not change.
  const { tokens, cost, model } = entry.message;
  return {
    id: entry.id,
    parentId: entry.parentId,
    type: "message",
    timestamp: entry.timestamp,
    message: {
      role: entry.message.role,
      content: [],
      ...(tokens ? { tokens } : {}),
      ...(cost === undefined ? {} : { cost }),
      ...(model === undefined ? {} : { model }),
    },
    [PURGED_FIELD]: mark,
  } as Entry;
}

const BLOB_REF = /sha256-[0-9a-f]{64}/g;

/** Every blob ref an entry mentions anywhere (a file part, a truncated output's note, tool metadata). Pure. */
export function blobRefsIn(entries: readonly Entry[]): Set<string> {
  const refs = new Set<string>();
  for (const entry of entries) for (const match of JSON.stringify(entry).matchAll(BLOB_REF)) refs.add(match[0]);
  return refs;
}
