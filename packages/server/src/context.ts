import type { LlmCache, Runtime, Store, WatchHub } from "@arbor/core";
import type { ClusterRelay } from "./cluster/cluster-node.js";

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
  /** The other instances of `arbor serve --cluster`, when this is one of them. */
  cluster: ClusterRelay | undefined;
}
