import { LazyFileStore } from "./file/lazy-file-store.js";
import type { StoreSpec } from "./spec.js";
import { storeSpecFromText } from "./spec-text.js";
import type { Store } from "./store.js";

/**
 * Opens a store from a `--store` string or a spec object. SQL drivers load only when a SQL store
 * is asked for, so the file store starts without them; the file store itself, and the schemas of its
 * records, load at its first read or write (a spec object is checked against its schema first). A
 * string opens a store without loading that schema. `createDatabase`: a MySQL or PostgreSQL server
 * without the database the URL names gets it created (else the open is refused, saying how).
 */
export async function openStore(spec: string | StoreSpec, options: { createDatabase?: boolean } = {}): Promise<Store> {
  const s: StoreSpec = typeof spec === "string" ? storeSpecFromText(spec) : (await import("./spec.js")).parseStoreSpec(spec);
  switch (s.kind) {
    case "file":
      return LazyFileStore.open({
        dir: s.dir,
        durability: s.durability,
        maxEntryBytes: s.maxEntryBytes,
        maxEventsPerSession: s.maxEventsPerSession,
        leaseTtlMs: s.leaseTtlMs,
        indexFromBytes: s.indexFromBytes,
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
