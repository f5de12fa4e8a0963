import { z } from "zod";
import { ArborError } from "../errors.js";

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
  z.object({ kind: z.literal("file"), dir: z.string().min(1), ...common }),
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
 * The `--store` / `ARBOR_STORE` forms: a directory (file store), `file:<dir>`, `sqlite:<file>`
 * (`sqlite::memory:` for a throwaway store), `mysql://…` (or `mariadb://…`), `postgres://…` or
 * `postgresql://…`. An unknown `scheme:` prefix is an error, never taken for a directory.
 */
export function parseStoreSpec(spec: string | StoreSpec): StoreSpec {
  if (typeof spec !== "string") {
    const r = StoreSpecSchema.safeParse(spec);
    if (!r.success) throw new ArborError("invalid_store_spec", `Invalid store spec: ${r.error.issues[0]?.message ?? ""}`);
    return r.data;
  }
  const s = spec.trim();
  if (s === "")
    throw new ArborError(
      "invalid_store_spec",
      "The store spec is empty: give a directory, sqlite:<file>, mysql://… or postgres://….",
    );
  if (s.startsWith("mysql://")) return { kind: "mysql", url: s };
  // MariaDB speaks the MySQL protocol; the driver knows only the mysql scheme.
  if (s.startsWith("mariadb://")) return { kind: "mysql", url: `mysql://${s.slice("mariadb://".length)}` };
  if (s.startsWith("postgres://") || s.startsWith("postgresql://")) return { kind: "postgres", url: s };
  if (s.startsWith("sqlite:")) {
    const file = s.slice("sqlite:".length);
    if (file === "") throw new ArborError("invalid_store_spec", "sqlite: needs a file name, e.g. sqlite:./arbor.db");
    return { kind: "sqlite", file };
  }
  if (s.startsWith("file:")) {
    const dir = s.slice("file:".length);
    if (dir === "") throw new ArborError("invalid_store_spec", "file: needs a directory, e.g. file:./sessions");
    return { kind: "file", dir };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    throw new ArborError(
      "invalid_store_spec",
      `Unsupported store URL scheme in ${JSON.stringify(s)}: use mysql://, mariadb://, postgres:// or sqlite:<file>.`,
    );
  }
  // `sqlite3:./x.db` or `foo:bar` is a mistyped scheme far more often than a directory with a colon
  // in its name; one letter is a Windows drive (`C:\\x`). A real such directory: `./foo:bar`.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(s)?.[1];
  if (scheme !== undefined) {
    const guess = scheme.toLowerCase().startsWith("sql") ? " (did you mean sqlite:?)" : "";
    throw new ArborError(
      "invalid_store_spec",
      `Unknown store scheme '${scheme}:' in ${JSON.stringify(s)}${guess}: use a directory, file:<dir>, sqlite:<file>, mysql://, mariadb:// or postgres://; write ./${s} for a directory with a colon in its name.`,
    );
  }
  return { kind: "file", dir: s };
}
