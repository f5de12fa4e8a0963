import { z } from "zod";
import type { Entry } from "../model/entry.js";
import { type TokenUsage, TokenUsageSchema } from "../model/message.js";
import type { SessionMeta } from "../model/session.js";

/**
 * The run timeline (a waterfall): each model call, tool call, compaction and sub-agent of a session's
 * active path as a span on a wall-clock axis, read back from the entries the run wrote. Entries are
 * written when their work ends, so a span ends at its entry's timestamp and starts its duration
 * earlier. A tool's permission wait is its own part of the span, before the tool's own time.
 * Times are milliseconds since the epoch.
 */

const base = {
  /** The entry the span was read from: the details of a click. */
  entry_id: z.string(),
  label: z.string(),
  start: z.number(),
  end: z.number(),
  duration_ms: z.number().nonnegative(),
};

export const TimelineSpanSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("model"),
    ...base,
    model: z.string().optional(),
    tokens: TokenUsageSchema.optional(),
    cost: z.number().nonnegative().optional(),
    is_error: z.boolean(),
  }),
  z.object({
    kind: z.literal("tool"),
    ...base,
    tool: z.string(),
    call_id: z.string(),
    /** Time spent waiting for a permission answer; not in `duration_ms`. */
    wait_ms: z.number().nonnegative(),
    is_error: z.boolean(),
  }),
  z.object({
    kind: z.literal("compaction"),
    ...base,
    tokens_before: z.number().int().nonnegative(),
    tokens: TokenUsageSchema.optional(),
    cost: z.number().nonnegative().optional(),
  }),
  z.object({
    kind: z.literal("subagent"),
    ...base,
    sub_session_id: z.string(),
    status: z.string(),
    /** Still running, or its result was never written: the span ends at the lane's end. */
    open: z.boolean(),
  }),
]);
export type TimelineSpan = z.infer<typeof TimelineSpanSchema>;

export interface TimelineLane {
  session_id: string;
  agent_type: string;
  task?: string | undefined;
  status?: string | undefined;
  start: number;
  end: number;
  spans: TimelineSpan[];
  /** Sub-agents' own lanes, by the sub-session id of their span. */
  lanes: TimelineLane[];
}

export const TimelineLaneSchema: z.ZodType<TimelineLane> = z.lazy(() =>
  z.object({
    session_id: z.string(),
    agent_type: z.string(),
    task: z.string().optional(),
    status: z.string().optional(),
    start: z.number(),
    end: z.number(),
    spans: z.array(TimelineSpanSchema),
    lanes: z.array(TimelineLaneSchema),
  }),
);

const at = (timestamp: string): number => Date.parse(timestamp);

function toolSpan(entry: Extract<Entry, { type: "message" }>): TimelineSpan[] {
  const message = entry.message;
  if (message.role !== "tool") return [];
  const end = at(entry.timestamp);
  const duration = message.durationMs ?? 0;
  const wait = message.permissionWaitMs ?? 0;
  return message.content.map((part) => ({
    kind: "tool" as const,
    entry_id: entry.id,
    label: part.toolName,
    tool: part.toolName,
    call_id: part.toolCallId,
    start: end - duration - wait,
    end,
    duration_ms: duration,
    wait_ms: wait,
    is_error: message.error !== undefined,
  }));
}

function modelSpan(entry: Extract<Entry, { type: "message" }>): TimelineSpan[] {
  const message = entry.message;
  // Only a model call's own message carries a duration; replies typed in or imported have none.
  if (message.role !== "assistant" || message.durationMs === undefined) return [];
  const end = at(entry.timestamp);
  return [
    {
      kind: "model",
      entry_id: entry.id,
      label: message.model ?? "model call",
      start: end - message.durationMs,
      end,
      duration_ms: message.durationMs,
      ...(message.model ? { model: message.model } : {}),
      ...(message.tokens ? { tokens: message.tokens } : {}),
      ...(message.cost !== undefined ? { cost: message.cost } : {}),
      is_error: message.error !== undefined,
    },
  ];
}

interface CompactionDetails {
  durationMs?: unknown;
  usage?: unknown;
  cost?: unknown;
}

function compactionSpan(entry: Extract<Entry, { type: "compaction" }>): TimelineSpan {
  const details = (entry.details ?? {}) as CompactionDetails;
  const duration = typeof details.durationMs === "number" && details.durationMs >= 0 ? details.durationMs : 0;
  const usage = TokenUsageSchema.safeParse(details.usage);
  const end = at(entry.timestamp);
  return {
    kind: "compaction",
    entry_id: entry.id,
    label: "compaction",
    start: end - duration,
    end,
    duration_ms: duration,
    tokens_before: entry.tokensBefore,
    ...(usage.success && details.usage !== undefined ? { tokens: usage.data as TokenUsage } : {}),
    ...(typeof details.cost === "number" && details.cost >= 0 ? { cost: details.cost } : {}),
  };
}

/** The spans of one session's path, in order of their start; sub-agents pair a batch entry with its result. */
export function timelineSpans(path: readonly Entry[], now: number): TimelineSpan[] {
  const spans: TimelineSpan[] = [];
  const started = new Map<string, { start: number; entryId: string; task: string }>();
  const ended = new Set<string>();
  for (const entry of path) {
    switch (entry.type) {
      case "message":
        spans.push(...modelSpan(entry), ...toolSpan(entry));
        break;
      case "compaction":
        spans.push(compactionSpan(entry));
        break;
      case "subagent_batch":
        for (const task of entry.tasks) {
          if (task.subSessionId) {
            started.set(task.subSessionId, { start: at(entry.timestamp), entryId: entry.id, task: task.task });
          }
        }
        break;
      case "subagent_result": {
        const begun = started.get(entry.subSessionId);
        const end = at(entry.timestamp);
        const start = begun?.start ?? end;
        ended.add(entry.subSessionId);
        spans.push({
          kind: "subagent",
          entry_id: entry.id,
          label: begun?.task ?? entry.subSessionId,
          sub_session_id: entry.subSessionId,
          status: entry.status,
          open: false,
          start,
          end,
          duration_ms: Math.max(0, end - start),
        });
        break;
      }
      case "thinking_level_change":
      case "model_change":
      case "branch_summary":
      case "custom":
      case "custom_message":
      case "label":
      case "session_info":
        break;
      default: {
        const unhandled: never = entry;
        void unhandled;
      }
    }
  }
  for (const [subSessionId, begun] of started) {
    if (ended.has(subSessionId)) continue;
    spans.push({
      kind: "subagent",
      entry_id: begun.entryId,
      label: begun.task,
      sub_session_id: subSessionId,
      status: "running",
      open: true,
      start: begun.start,
      end: Math.max(begun.start, now),
      duration_ms: Math.max(0, now - begun.start),
    });
  }
  return spans.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** A lane of a session: its spans and the extent they (and its sub-lanes) cover. */
export function timelineLane(
  meta: Pick<SessionMeta, "id" | "agentType" | "task" | "status" | "createdAt">,
  path: readonly Entry[],
  lanes: TimelineLane[],
  now: number,
): TimelineLane {
  const spans = timelineSpans(path, now);
  const first = path[0];
  const last = path.at(-1);
  // A loop, not Math.min(...times): spreading the spans of a long session overflows the call stack.
  let earliest = Number.POSITIVE_INFINITY;
  let latest = Number.NEGATIVE_INFINITY;
  for (const s of [...spans, ...lanes]) {
    earliest = Math.min(earliest, s.start);
    latest = Math.max(latest, s.end);
  }
  const start = Math.min(earliest, first ? at(first.timestamp) : at(meta.createdAt));
  const end = Math.max(latest, last ? at(last.timestamp) : start);
  return {
    session_id: meta.id,
    agent_type: meta.agentType,
    ...(meta.task !== undefined ? { task: meta.task } : {}),
    ...(meta.status !== undefined ? { status: meta.status } : {}),
    start,
    end,
    spans,
    lanes,
  };
}
