import { ArborError } from "../errors.js";
import type { Store } from "../store/store.js";
import { type TimelineLane, timelineLane } from "./timeline.js";

/** Sub-agents nest; past this depth (or this many lanes in all) the timeline stops opening them. */
export const TIMELINE_MAX_DEPTH = 4;
export const TIMELINE_MAX_LANES = 200;

/**
 * The timeline of a session with its sub-agents' lanes nested under their spans, read from the
 * store. Throws `session_not_found` for a missing session; a sub-session that is gone is skipped.
 */
export async function readTimeline(store: Store, sessionId: string, now = Date.now()): Promise<TimelineLane> {
  let budget = TIMELINE_MAX_LANES;
  const read = async (id: string, depth: number): Promise<TimelineLane | undefined> => {
    const meta = await store.getSession(id);
    if (!meta) return undefined;
    budget -= 1;
    const path = await store.getActivePath(id);
    const lanes: TimelineLane[] = [];
    if (depth < TIMELINE_MAX_DEPTH) {
      const subIds = new Set<string>();
      for (const e of path) {
        if (e.type === "subagent_batch") for (const t of e.tasks) if (t.subSessionId) subIds.add(t.subSessionId);
        if (e.type === "subagent_result") subIds.add(e.subSessionId);
      }
      for (const subId of subIds) {
        if (budget <= 0) break;
        const lane = await read(subId, depth + 1);
        if (lane) lanes.push(lane);
      }
    }
    return timelineLane(meta, path, lanes, now);
  };
  const lane = await read(sessionId, 0);
  if (!lane) throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  return lane;
}
