import type { DebugLevel } from "@arbor/core";
import { DebugLevelSchema, DebugRecordSchema } from "@arbor/core/events";
import { z } from "zod";
import { SessionId } from "./id-schemas.js";

/** The LLM cache and DebugMiddleware on the wire, snake_case like the run events. */

export const LlmCacheStatsWire = z.object({
  enabled: z.boolean().describe("False when the server's runtime has no LLM cache (ENABLE_LLM_CACHE is off)."),
  store: z.enum(["memory", "file"]).optional(),
  ttl_seconds: z.number().int().positive().optional(),
  hits: z.number().int().nonnegative(),
  misses: z.number().int().nonnegative(),
  writes: z.number().int().nonnegative().describe("Responses recorded."),
  entries: z.number().int().nonnegative().describe("Recordings kept (expired ones are dropped first)."),
  bytes: z.number().int().nonnegative().describe("Their size as stored, in bytes of JSON."),
});

export const CacheStatsResponse = z.object({ llm: LlmCacheStatsWire });

export const CacheClearQuery = z.object({
  type: z.enum(["llm", "all"]).default("all").describe("Which cache to clear; `llm` is the only one so far."),
});

export const CacheClearResponse = z.object({
  cleared: z.object({ llm: z.number().int().nonnegative().describe("Recordings dropped.") }),
});

/** `debug` of `POST /api/chat`: a boolean, as older clients send it (true is `standard`), or a level by name. */
export const ChatDebug = z
  .union([z.boolean(), DebugLevelSchema])
  .describe(
    "DebugMiddleware for this run: true (`standard`), false (`off`), or a level: off, basic (tool timing), standard (+ model calls, input cut to 2,000 and output to 1,000 characters), full (whole inputs and outputs). Records are read with GET /api/sessions/:id/debug.",
  );

/** `debug: true` is the standard level (enough to follow a run), false is off. */
export function debugLevelOf(debug: z.output<typeof ChatDebug>): DebugLevel {
  if (debug === true) return "standard";
  if (debug === false) return "off";
  return debug;
}

export const DebugQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("Only records logged after this event id (`next_after` of the previous page)."),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe("Page size, 1-1000 (default 100)."),
});

export const DebugRecordWire = DebugRecordSchema.and(z.object({ event_id: z.number().int().positive() }));

export const DebugResponse = z.object({
  session_id: SessionId,
  records: z.array(DebugRecordWire).describe("Oldest first: tool calls and model calls as DebugMiddleware recorded them."),
  next_after: z.number().int().positive().optional().describe("Pass as `after` for the next page; absent at the end."),
});
