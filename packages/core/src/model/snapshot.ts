import { z } from "zod";
import { EntrySchema, ThinkingLevelSchema } from "./entry.js";
import { MessageSchema } from "./message.js";
import { SessionMetaSchema } from "./session.js";

export const RuntimeContextSchema = z.object({
  messages: z.array(MessageSchema),
  /** The entry each message came from, index for index. */
  messageEntryIds: z.array(z.string()),
  thinkingLevel: ThinkingLevelSchema.nullable(),
  model: z.string().nullable(),
});

/**
 * The contract between back end and front end: the whole session tree in one read. `childrenByParentId` lists children in
 * append order; root entries are listed under the key "".
 */
export const SnapshotSchema = z.object({
  session: SessionMetaSchema,
  entries: z.array(EntrySchema),
  activePath: z.array(z.string()),
  childrenByParentId: z.record(z.string(), z.array(z.string())),
  labelsByEntryId: z.record(z.string(), z.string()),
  runtimeContext: RuntimeContextSchema,
});

export type RuntimeContext = z.infer<typeof RuntimeContextSchema>;
export type Snapshot = z.infer<typeof SnapshotSchema>;
