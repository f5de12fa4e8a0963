import type { Runtime, Store } from "@arbor/core";
import type { RunStreams } from "./streams/run-streams.js";

/** What route handlers share: the caller's runtime and store, and this server's run streams. */
export interface ServerContext {
  runtime: Runtime;
  store: Store;
  streams: RunStreams;
}
