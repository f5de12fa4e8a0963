import * as z from "zod/mini";

/** The run timeline (GET /api/sessions/:id/timeline), checked at the boundary like the other payloads. */

const Tokens = z.looseObject({
  input: z.number(),
  output: z.number(),
  reasoning: z.optional(z.number()),
  cacheRead: z.optional(z.number()),
  cacheWrite: z.optional(z.number()),
});

const base = {
  entry_id: z.string(),
  label: z.string(),
  start: z.number(),
  end: z.number(),
  duration_ms: z.number(),
};

const SpanShape = z.discriminatedUnion("kind", [
  z.looseObject({
    kind: z.literal("model"),
    ...base,
    model: z.optional(z.string()),
    tokens: z.optional(Tokens),
    cost: z.optional(z.number()),
    is_error: z.boolean(),
  }),
  z.looseObject({
    kind: z.literal("tool"),
    ...base,
    tool: z.string(),
    call_id: z.string(),
    wait_ms: z.number(),
    is_error: z.boolean(),
  }),
  z.looseObject({
    kind: z.literal("compaction"),
    ...base,
    tokens_before: z.number(),
    tokens: z.optional(Tokens),
    cost: z.optional(z.number()),
  }),
  z.looseObject({
    kind: z.literal("subagent"),
    ...base,
    sub_session_id: z.string(),
    status: z.string(),
    open: z.boolean(),
  }),
]);

export type TimelineSpan = z.infer<typeof SpanShape>;
export type SpanTokens = z.infer<typeof Tokens>;

/** Lanes nest (sub-agents' own lanes); each level is checked with the same shape (depth is bounded by the server). */
const Lane = z.looseObject({
  session_id: z.string(),
  agent_type: z.string(),
  task: z.optional(z.string()),
  status: z.optional(z.string()),
  start: z.number(),
  end: z.number(),
  spans: z.array(SpanShape),
  get lanes() {
    return z.array(Lane);
  },
});

export type TimelineLane = z.infer<typeof Lane>;

export function parseTimeline(value: unknown): TimelineLane {
  return Lane.parse(value);
}
