/**
 * `@arbor/core/store`: what a host needs around a store beyond opening it (`openStore` is public):
 * parsing a `--store` spec, telling a session another process is running, the records of asks, SQL access for hosts that
 * share the database, and where tools put large outputs. Used by the CLI, the server and the benchmarks.
 */
export type { AskAnswer, AskInput, AskKind, AskRecord, ListAsksOptions } from "../store/asks.js";
export { sessionBusy } from "../store/lease.js";
export { parseStoreSpec } from "../store/spec.js";
export type { SqlExecutor } from "../store/store.js";
export { FileBlobStore, MemoryBlobStore } from "../tools/blob-store.js";
