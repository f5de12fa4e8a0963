import type { LlmCache, Runtime, Store, WatchHub } from "@arbor/core";
import type { RunStreams } from "./streams/run-streams.js";

/** What route handlers share: the caller's runtime, store and watch hub, and this server's run streams. */
export interface ServerContext {
  runtime: Runtime;
  store: Store;
  streams: RunStreams;
  /** The trace watch: its event log and live watchers. */
  watch: WatchHub;
  /** The LLM response cache the cache routes report on and clear, when there is one. */
  cache: LlmCache | undefined;
}
