import { z } from "zod";
import type { CompactionEntry, Entry } from "../model/entry.js";
import { EntryIdSchema } from "../model/ids.js";
import { DELETE_ENTRY_TYPE } from "../session/delete-entry.js";
import { PRUNE_ENTRY_TYPE } from "../session/prune-entry.js";
import { TOOL_CHECKPOINT_ENTRY_TYPE, TOOL_STARTED_ENTRY_TYPE } from "../session/tool-started-entry.js";

/**
 * The part of a session's active path a continued run needs. Everything before the latest compaction
 * is already summarized in it, so its messages are left out; what the run still folds from earlier
 * entries (model and thinking level changes, approvals, goal and plan records, labels, the task's
 * first message) comes along as the compaction's carried entries.
 */
export interface LivePath {
  /** Root → leaf order: the carried entries, then the path from the compaction's first kept entry on. */
  entries: Entry[];
  /** False when entries before the latest compaction were left out. */
  complete: boolean;
}

/**
 * The ids of the carried entries, written on a compaction when it is appended: the entries before it
 * that a run folds into state rather than into the model's messages. A compaction written without
 * them (an import, an older version) makes the next read take the whole path.
 */
export const CARRIED_FIELD = "carriedEntryIds";
const CarriedSchema = z.array(EntryIdSchema).max(100_000);

/** The carried ids written on a compaction, or undefined when it has none. */
export function carriedIdsOf(entry: CompactionEntry): string[] | undefined {
  const r = CarriedSchema.safeParse((entry as Record<string, unknown>)[CARRIED_FIELD]);
  return r.success ? r.data : undefined;
}

function isFirstTask(entry: Entry): boolean {
  return entry.type === "message" && entry.message.role === "user" && entry.message.synthetic !== true;
}

/**
 * Entries about messages: edits of them (before a compaction the messages they edit are summarized
 * away) and the start and checkpoint records of tool calls (a compaction comes after the calls have their results).
 */
const ABOUT_MESSAGES: ReadonlySet<string> = new Set([
  PRUNE_ENTRY_TYPE,
  DELETE_ENTRY_TYPE,
  TOOL_STARTED_ENTRY_TYPE,
  TOOL_CHECKPOINT_ENTRY_TYPE,
]);

/**
 * What a run folds from an entry rather than shows the model as a message. Messages, summaries and
 * sub-agent records are left out: a compaction already tells of them.
 */
function isCarriedKind(entry: Entry): boolean {
  switch (entry.type) {
    case "custom":
      return !ABOUT_MESSAGES.has(entry.customType);
    case "thinking_level_change":
    case "model_change":
    case "label":
    case "session_info":
      return true;
    case "message":
    case "compaction":
    case "branch_summary":
    case "custom_message":
    case "subagent_batch":
    case "subagent_result":
      return false;
    default: {
      const unreachable: never = entry;
      return unreachable;
    }
  }
}

/**
 * A tool result that records the plan in its parts' metadata (the goal tool's): the latest one is the
 * plan's structure when no later record replaced it, so a continued run must still see it.
 */
function recordsPlan(entry: Entry): boolean {
  if (entry.type !== "message" || entry.message.role !== "tool") return false;
  return entry.message.content.some((p) => (p as { metadata?: { goalTree?: unknown } }).metadata?.goalTree !== undefined);
}

/** The carried ids for a compaction appended after `live` (the live path at its parent), in path order. */
export function carriedIdsFor(live: readonly Entry[]): string[] {
  const task = live.find(isFirstTask);
  const plan = live.findLast(recordsPlan);
  const ids: string[] = [];
  for (const e of live) if (e === task || e === plan || isCarriedKind(e)) ids.push(e.id);
  return ids;
}

/**
 * Assembles the live path from the tail (the path from the compaction's first kept entry, or the
 * compaction itself, to the leaf) and its carried entries, which a tail entry never repeats.
 */
export function joinLivePath(carried: readonly Entry[], tail: readonly Entry[]): LivePath {
  const inTail = new Set(tail.map((e) => e.id));
  return { entries: [...carried.filter((e) => !inTail.has(e.id)), ...tail], complete: false };
}

/**
 * The live path cut from a whole active path: what a store that holds the path in memory returns,
 * and what every store must agree with.
 */
export function livePathOf(path: readonly Entry[]): LivePath {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type !== "compaction") continue;
    const carried = carriedIdsOf(entry);
    if (carried === undefined) break;
    let from = i;
    if (entry.firstKeptEntryId !== null) {
      for (let j = i - 1; j >= 0; j--) {
        if (path[j]!.id === entry.firstKeptEntryId) {
          from = j;
          break;
        }
      }
    }
    const wanted = new Set(carried);
    return joinLivePath(
      path.slice(0, from).filter((e) => wanted.has(e.id)),
      path.slice(from),
    );
  }
  return { entries: [...path], complete: true };
}

/**
 * The live path read by following parent links back from the leaf, one entry at a time: what a store
 * that can fetch an entry by id cheaply returns without reading the whole path. Agrees with
 * `livePathOf` on the active path; `get` returns undefined for an id it does not hold.
 */
export function livePathByLinks(leafId: string | null, get: (id: string) => Entry | undefined): LivePath {
  const tail: Entry[] = [];
  // Past a compaction that carries no list the whole path is read, as `livePathOf` does.
  let whole = false;
  let cut: CompactionEntry | undefined;
  const seen = new Set<string>();
  for (let id = leafId; id !== null && !seen.has(id); ) {
    seen.add(id);
    const entry = get(id);
    if (!entry) break;
    tail.push(entry);
    if (!whole && entry.type === "compaction") {
      if (carriedIdsOf(entry) === undefined) whole = true;
      else {
        cut = entry;
        break;
      }
    }
    id = entry.parentId;
  }
  tail.reverse();
  if (!cut) return { entries: tail, complete: true };
  const kept: Entry[] = [];
  if (cut.firstKeptEntryId !== null) {
    for (let id = cut.parentId; id !== null && !seen.has(id); ) {
      seen.add(id);
      const entry = get(id);
      if (!entry) break;
      kept.push(entry);
      if (id === cut.firstKeptEntryId) break;
      id = entry.parentId;
    }
    // A first kept entry that is not on the path keeps nothing more, as the context fold reads it.
    if (kept.at(-1)?.id !== cut.firstKeptEntryId) kept.length = 0;
    kept.reverse();
  }
  const carried = (carriedIdsOf(cut) ?? []).flatMap((id) => get(id) ?? []);
  return joinLivePath(carried, [...kept, ...tail]);
}
