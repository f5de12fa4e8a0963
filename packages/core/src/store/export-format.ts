import { z } from "zod";
import { EntrySchema } from "../model/entry.js";
import { SessionMetaSchema } from "../model/session.js";

/** A whole session as `arbor sessions export` writes it; the same on every backend. */
export const SessionExportSchema = z.object({
  format: z.literal("arbor-session"),
  version: z.number().int().positive(),
  session: SessionMetaSchema,
  entries: z.array(EntrySchema),
});

export type SessionExport = z.infer<typeof SessionExportSchema>;
