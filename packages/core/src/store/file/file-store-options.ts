import type { Durability } from "../spec.js";

export interface FileStoreOptions {
  dir: string;
  durability?: Durability;
  maxEntryBytes?: number;
  /** Event log records kept per session (default 100,000). */
  maxEventsPerSession?: number;
  /** Sessions kept loaded in memory (least recently used are dropped first). */
  cacheSize?: number;
  /** How long a session's lease outlives its holder's last heartbeat (default 30 s). */
  leaseTtlMs?: number;
  /** entries.jsonl bytes from which a session keeps entries.idx (default 64 KiB; see the store spec). */
  indexFromBytes?: number;
}
