import { z } from "zod";
import type { Store } from "../store/store.js";

/**
 * DebugMiddleware's records: one per finished tool call and, from
 * `standard` on, per model call. They are kept in the session's event log as `debug_call` records,
 * so they live and die with the session; field names are the run stream's (snake_case).
 */

export const DEBUG_LEVELS = ["off", "basic", "standard", "full"] as const;

/**
 * `off`: nothing. `basic`: tool calls and their timing. `standard`: also model calls, with the input
 * and output the run events carry (the last message cut to 2,000 characters, the output to 1,000).
 * `full`: the whole prompt and output of every model call and the whole tool input and output.
 */
export const DebugLevelSchema = z.enum(DEBUG_LEVELS);
export type DebugLevel = z.infer<typeof DebugLevelSchema>;

/** The event-log type of a debug record; watchers of the trace never see these. */
export const DEBUG_EVENT_TYPE = "debug_call";

const common = {
  /** The run the call belongs to. */
  run_id: z.string(),
  call_id: z.string(),
  /** The level it was recorded at, which says how much of its input and output it holds. */
  level: z.enum(["basic", "standard", "full"]),
  /** ISO-8601. */
  started_at: z.string(),
  duration_ms: z.number().int().nonnegative().optional(),
  /** The run ended before the call did (an abort): no duration and no output. */
  interrupted: z.boolean().optional(),
  input: z.string().optional(),
  output: z.string().optional(),
  /** `full`: the input or output was longer than a record holds and was cut. */
  truncated: z.boolean().optional(),
};

export const ToolDebugRecordSchema = z.looseObject({
  kind: z.literal("tool"),
  ...common,
  tool: z.string(),
  is_error: z.boolean().optional(),
});

export const LlmDebugRecordSchema = z.looseObject({
  kind: z.literal("llm"),
  ...common,
  /** The agent (or `compaction`) that made the call. */
  node: z.string(),
  model: z.string(),
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  total_tokens: z.number().int().nonnegative().optional(),
  /** Answered from the LLM response cache. */
  cached: z.boolean().optional(),
  finish_reason: z.string().optional(),
  /** `full`: temperature, output limit and the tools offered. */
  settings: z.record(z.string(), z.unknown()).optional(),
});

export const DebugRecordSchema = z.discriminatedUnion("kind", [ToolDebugRecordSchema, LlmDebugRecordSchema]);
export type DebugRecord = z.infer<typeof DebugRecordSchema>;
export type ToolDebugRecord = z.infer<typeof ToolDebugRecordSchema>;
export type LlmDebugRecord = z.infer<typeof LlmDebugRecordSchema>;

/** A record as read back, with its place in the session's event log. */
export type StoredDebugRecord = DebugRecord & { event_id: number };

export interface ReadDebugOptions {
  /** Only records logged after this event id (default 0). */
  after?: number;
  /** At most this many (default 100). */
  limit?: number;
}

const PAGE = 1000;

/**
 * A session's debug records, oldest first, and the event id to pass as `after` for the next page
 * (absent when the log has been read to its end). Records that do not parse are skipped.
 */
export async function readDebugRecords(
  store: Pick<Store, "listEvents">,
  sessionId: string,
  options: ReadDebugOptions = {},
): Promise<{ records: StoredDebugRecord[]; nextAfter?: number }> {
  const limit = options.limit ?? 100;
  const records: StoredDebugRecord[] = [];
  let after = options.after ?? 0;
  for (;;) {
    const page = await store.listEvents(sessionId, { after, limit: PAGE });
    for (const event of page) {
      after = event.id;
      if (event.type !== DEBUG_EVENT_TYPE) continue;
      const parsed = DebugRecordSchema.safeParse(event.data);
      if (!parsed.success) continue;
      records.push({ ...parsed.data, event_id: event.id });
      if (records.length === limit) return { records, nextAfter: after };
    }
    if (page.length < PAGE) return { records };
  }
}
