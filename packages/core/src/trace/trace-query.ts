import { ArborError } from "../errors.js";
import { goalTreeOnPath, recordedGoalTree } from "../goal/goal-path.js";
import type { GoalTree } from "../goal/goal-tree.js";
import { planView } from "../goal/numbering.js";
import { descendantIds } from "../goal/tree-walk.js";
import type { Entry, MessageEntry } from "../model/entry.js";
import type { SessionMeta } from "../model/session.js";
import type { Store } from "../store/store.js";

/** A trace as the watch API serves it: its meta, its goal tree at the leaf, and the sub-traces it started. */
export interface TraceView {
  trace: SessionMeta;
  goalTree: GoalTree | null;
  /** Direct sub-traces, oldest first, each with its task, status and totals. */
  subTraces: SessionMeta[];
}

const PAGE = 1000;

async function existing(store: Store, traceId: string): Promise<SessionMeta> {
  const meta = await store.getSession(traceId);
  if (!meta) throw new ArborError("session_not_found", `No trace ${traceId} in this store.`);
  return meta;
}

/**
 * Every direct sub-trace of `traceId` in the order they were launched. Branches of one call start
 * together, so their sessions may be created in any order within a millisecond; their ids carry the
 * launch second and sequence (`…@explore-20260101120000-002`), which put them in launch order.
 */
export async function listSubTraces(store: Store, traceId: string): Promise<SessionMeta[]> {
  const out: SessionMeta[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await store.listSessions({ parentSessionId: traceId, limit: PAGE, ...(cursor ? { cursor } : {}) });
    out.push(...page.sessions);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return out.sort(byLaunch);
}

/** Launch second, then sequence within it, then creation time (ids of other shapes sort by creation). */
function byLaunch(a: SessionMeta, b: SessionMeta): number {
  const [x, y] = [launchKey(a.id), launchKey(b.id)];
  if (x && y && x.stamp !== y.stamp) return x.stamp < y.stamp ? -1 : 1;
  if (x && y && x.seq !== y.seq) return x.seq - y.seq;
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
}

function launchKey(id: string): { stamp: string; seq: number } | undefined {
  const m = /-(\d{14})-(\d+)$/.exec(id);
  return m ? { stamp: m[1]!, seq: Number(m[2]) } : undefined;
}

/** `GET /api/traces/:id`: throws `session_not_found` for an unknown trace. */
export async function getTrace(store: Store, traceId: string): Promise<TraceView> {
  const trace = await existing(store, traceId);
  const [path, subTraces] = await Promise.all([store.getActivePath(traceId), listSubTraces(store, traceId)]);
  return { trace, goalTree: goalTreeOnPath(path) ?? null, subTraces };
}

/** The latest goal tree recorded on a path, as recorded (its stats are not counted again). */
function latestGoalTreeOnPath(path: readonly Entry[]): GoalTree | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const tree = recordedGoalTree(path[i] as Entry);
    if (tree) return tree;
  }
  return undefined;
}

export interface GoalMessagesOptions {
  /** Also the messages of the goal's subgoals (what an edge shows when it is collapsed). */
  descendants?: boolean;
}

/**
 * `GET /api/traces/:id/messages?goal_id=`: the messages on the active path written under a goal
 * (its internal id, or its dotted number in the plan such as "2.1"), in order; every message when `goalId` is undefined. An id the tree does not
 * have is `goal_not_found`, so a typo is not mistaken for a goal without messages.
 */
export async function goalMessages(
  store: Store,
  traceId: string,
  goalId: string | undefined,
  options: GoalMessagesOptions = {},
): Promise<MessageEntry[]> {
  await existing(store, traceId);
  const path = await store.getActivePath(traceId);
  const messages = path.filter((e): e is MessageEntry => e.type === "message");
  if (goalId === undefined) return messages;
  // Only the plan's shape is needed here (which goals there are, and under which): the latest tree
  // recorded on the path, without counting every message's stats again as the goal view does.
  const tree = latestGoalTreeOnPath(path);
  // A dotted number is the goal's number in the plan as the model sees it ("2.1"); a plain one its id.
  const id = goalId.includes(".") && tree ? (planView(tree).idOf.get(goalId) ?? goalId) : goalId;
  if (!tree?.goals.some((g) => g.id === id)) {
    const plan = tree ? [...planView(tree).idOf.keys()] : [];
    throw new ArborError(
      "goal_not_found",
      `Trace ${traceId} has no goal ${goalId}: give a goal's id ("2") or its number in the plan ("2.1")` +
        (plan.length > 0 ? `; the plan's numbers are ${plan.join(", ")}.` : "; the trace has no plan."),
    );
  }
  const ids = new Set([id, ...(options.descendants ? descendantIds(tree.goals, id) : [])]);
  return messages.filter((e) => e.message.goalId !== undefined && ids.has(e.message.goalId));
}
