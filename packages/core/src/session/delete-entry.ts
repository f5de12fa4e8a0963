import { z } from "zod";
import type { Entry } from "../model/entry.js";

/**
 * `customType` of the `custom` entry that deletes messages from the active path on. Sessions are
 * append-only, so that every past state can be read again; a delete is therefore recorded, never
 * performed: the context builder and the message trace leave the listed entries out from this point of the
 * path on, and sibling branches, which never see the entry, keep them.
 */
export const DELETE_ENTRY_TYPE = "arbor.delete";

export const DeleteDataSchema = z.looseObject({
  /** The entries deleted: a user message, or an answer's assistant and tool messages. */
  entryIds: z.array(z.string().min(1)).min(1),
  /** The trace message the client deleted, for display. */
  messageId: z.string().min(1).optional(),
});
export type DeleteData = z.infer<typeof DeleteDataSchema>;

/** The entry ids deleted by the delete entries on `path`. Pure. */
export function deletedEntryIds(path: readonly Entry[]): Set<string> {
  const out = new Set<string>();
  for (const entry of path) {
    if (entry.type !== "custom" || entry.customType !== DELETE_ENTRY_TYPE) continue;
    const data = DeleteDataSchema.safeParse(entry.data);
    if (data.success) for (const id of data.data.entryIds) out.add(id);
  }
  return out;
}
