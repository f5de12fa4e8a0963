import type { LlmCache, Runtime, Store, WatchHub } from "@arbor/core";

/**
 * What route handlers share: the runtime, and what they read through it (its store, watch hub and
 * cache), named once here so every route reads the same ones.
 */
export interface ServerContext {
  runtime: Runtime;
  store: Store;
  /** The trace watch: its event log and live watchers. */
  watch: WatchHub;
  /** The LLM response cache the cache routes report on and clear, when there is one. */
  cache: LlmCache | undefined;
}
