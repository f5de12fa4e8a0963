import type { LlmCache, Runtime, Store, WatchHub } from "@arbor/core";
import type { ClusterRelay } from "./cluster/cluster-node.js";
import { ApiError } from "./errors.js";

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
  /** Bounds on the `/mcp` sessions this server keeps. */
  mcpSessions?: McpSessionLimits;
}

/**
 * How many `/mcp` sessions one server keeps, and for how long: each holds an MCP server and its
 * transport in memory, and clients that never send DELETE (most) would otherwise keep them forever.
 */
export interface McpSessionLimits {
  /** Sessions kept at once (default 500); a new one past it ends the longest idle, or is refused with 503. */
  max?: number;
  /** A session with no request and no open stream for this long is ended (default 30 minutes). */
  idleMs?: number;
  /** The clock idleness is read from (tests). */
  now?: () => number;
}

/**
 * Refuses new work on a cluster instance whose health says it takes none (it is handing its runs
 * back on SIGTERM, or has lost the others' notifications): a run started there now would be cut off
 * with its client still waiting. A client that gets this 503 sends the request again, and the load
 * balancer, which sees the same answer from /api/health, routes it to another instance.
 */
export function requireAccepting(ctx: ServerContext): void {
  if (ctx.cluster && !ctx.cluster.health().accepting) {
    throw new ApiError(
      "instance_unavailable",
      "This instance is shutting down or cut off from the cluster and starts no new runs; send the request again to another instance.",
    );
  }
}
