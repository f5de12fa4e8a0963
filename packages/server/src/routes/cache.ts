import type { LlmCache } from "@arbor/core";
import { CacheClearQuery, CacheClearResponse, CacheStatsResponse } from "../cache-debug-schemas.js";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";

async function llmStats(cache: LlmCache | undefined) {
  if (!cache) return { enabled: false, hits: 0, misses: 0, writes: 0, entries: 0, bytes: 0 };
  const s = await cache.stats();
  return {
    enabled: true,
    store: s.store,
    ttl_seconds: s.ttlSeconds,
    hits: s.hits,
    misses: s.misses,
    writes: s.writes,
    entries: s.entries,
    bytes: s.bytes,
  };
}

/** The LLM response cache's statistics, and clearing it. */
export function cacheRoutes({ cache }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/cache/stats",
        scope: "read",
        tag: "cache",
        summary: "Statistics of the LLM response cache",
        description:
          "Hits, misses and writes count since the server started (clearing keeps them); entries and bytes are what the cache holds now.",
        responses: { 200: { description: "The statistics.", schema: CacheStatsResponse } },
      },
      async (_input, c) => c.json({ llm: await llmStats(cache) }),
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/cache/clear",
        scope: "admin",
        tag: "cache",
        summary: "Clear the LLM response cache",
        query: CacheClearQuery,
        responses: {
          200: { description: "What was dropped (0 when there is no cache).", schema: CacheClearResponse },
          400: "An unknown cache type.",
        },
      },
      async (_input, c) => c.json({ cleared: { llm: cache ? await cache.clear() : 0 } }),
    ),
  ];
}
