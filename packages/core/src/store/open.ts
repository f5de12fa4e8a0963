import { openFileStore } from "./file/file-store.js";
import { parseStoreSpec, type StoreSpec } from "./spec.js";
import type { Store } from "./store.js";

/**
 * Opens a store from a `--store` string or a spec object. SQL drivers load only when a SQL store
 * is asked for, so the file store starts without them. `createDatabase`: a MySQL or PostgreSQL
 * server without the database the URL names gets it created (else the open is refused, saying how).
 */
export async function openStore(spec: string | StoreSpec, options: { createDatabase?: boolean } = {}): Promise<Store> {
  const s = parseStoreSpec(spec);
  switch (s.kind) {
    case "file":
      return openFileStore({
        dir: s.dir,
        durability: s.durability,
        maxEntryBytes: s.maxEntryBytes,
        maxEventsPerSession: s.maxEventsPerSession,
        leaseTtlMs: s.leaseTtlMs,
      });
    case "sqlite":
    case "mysql":
    case "postgres": {
      const { openSqlStore } = await import("./sql/open-sql-store.js");
      return openSqlStore(s, options);
    }
    default: {
      const unreachable: never = s;
      return unreachable;
    }
  }
}
