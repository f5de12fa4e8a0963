/**
 * `@arbor/core/store`: what a host needs around a store beyond opening it (`openStore` is public):
 * parsing a `--store` spec, telling a session another process is running, the records of asks, SQL access for hosts that
 * share the database, where tools put large outputs, and the principals and API tokens of the front doors. Used by the CLI, the server and the benchmarks.
 */

export { LOCAL_ADMIN, type Principal, PrincipalSchema, type Scope, ScopeSchema } from "../auth/principal.js";
export type { TokenRecord } from "../auth/tokens.js";
export type { RuntimeAccess } from "../runtime/access.js";
export type { AskAnswer, AskInput, AskKind, AskRecord, ListAsksOptions } from "../store/asks.js";
export { FileMcpCredentials, MCP_CREDENTIALS_DIR } from "../store/file/mcp-credential-files.js";
export { sessionBusy } from "../store/lease.js";
export { parseStoreSpec } from "../store/spec.js";
export type { SqlExecutor } from "../store/store.js";
export type { TokenStore } from "../store/tokens.js";
export { FileBlobStore, MemoryBlobStore } from "../tools/blob-store.js";
