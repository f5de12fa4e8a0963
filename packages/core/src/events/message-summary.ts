import type { Entry } from "../model/entry.js";
import type { MessageSummary } from "./watch-events.js";

/** The `message` of a `message_added` event for a message entry (field names as watchers read them); undefined for other entries. Pure. */
export function messageSummary(entry: Entry): MessageSummary | undefined {
  if (entry.type !== "message") return undefined;
  const m = entry.message;
  const out: MessageSummary = { message_id: entry.id, parent_id: entry.parentId, role: m.role, created_at: entry.timestamp };
  if (m.goalId !== undefined) out.goal_id = m.goalId;
  if (m.description !== undefined) out.description = m.description;
  if (m.model !== undefined) out.model = m.model;
  if (m.finishReason !== undefined) out.finish_reason = m.finishReason;
  if (m.tokens !== undefined) {
    out.tokens = {
      input: m.tokens.input,
      output: m.tokens.output,
      reasoning: m.tokens.reasoning,
      cache_read: m.tokens.cacheRead,
      cache_write: m.tokens.cacheWrite,
    };
  }
  if (m.cost !== undefined) out.cost = m.cost;
  if (m.durationMs !== undefined) out.duration_ms = m.durationMs;
  if (m.error !== undefined) out.error = m.error.message;
  return out;
}
