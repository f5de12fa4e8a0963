import { z } from "zod";
import { ArborError } from "../errors.js";
import { storeSpecFromText } from "./spec-text.js";

export const DurabilitySchema = z.enum(["process", "fsync"]);
/**
 * `process`: an append that returned has reached the operating system and survives a crash of the
 * process. `fsync`: it has also reached the disk and survives power loss; concurrent appends share
 * one fsync.
 */
export type Durability = z.infer<typeof DurabilitySchema>;

const common = {
  durability: DurabilitySchema.optional(),
  maxEntryBytes: z.number().int().positive().optional(),
  /** Event log records kept per session, newest first (default 100,000). */
  maxEventsPerSession: z.number().int().positive().optional(),
  /** How long a session's lease outlives its holder's last heartbeat, in ms (default 30,000). */
  leaseTtlMs: z.number().int().positive().optional(),
};

export const StoreSpecSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("file"),
    dir: z.string().min(1),
    /**
     * entries.jsonl bytes from which a session keeps an entry index (entries.idx; default 64 KiB): a
     * smaller session is read whole on resume, which costs less than making and keeping the file.
     */
    indexFromBytes: z.number().int().nonnegative().optional(),
    ...common,
  }),
  z.object({ kind: z.literal("sqlite"), file: z.string().min(1), ...common }),
  z.object({ kind: z.literal("mysql"), url: z.string().min(1), ...common }),
  z.object({
    kind: z.literal("postgres"),
    url: z.string().min(1),
    /** Schema holding Arbor's tables (created if absent); the connection's default search path when absent. */
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, "a postgres schema must be a lowercase identifier: a-z, 0-9, _")
      .optional(),
    ...common,
  }),
]);

export type StoreSpec = z.infer<typeof StoreSpecSchema>;

/**
 * A spec object, checked; or a `--store` / `ARBOR_STORE` string, parsed (see `storeSpecFromText`).
 * Throws ArborError `invalid_store_spec` for a spec that cannot be used.
 */
export function parseStoreSpec(spec: string | StoreSpec): StoreSpec {
  if (typeof spec === "string") return storeSpecFromText(spec);
  const r = StoreSpecSchema.safeParse(spec);
  if (!r.success) throw new ArborError("invalid_store_spec", `Invalid store spec: ${r.error.issues[0]?.message ?? ""}`);
  return r.data;
}
