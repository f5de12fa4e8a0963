import type { Entry, Snapshot } from "@arbor/core";
import { steeringText } from "../../lib/steering.js";
import { goalSummary } from "../common/tool-view.js";

/**
 * The session tree as rows for a virtualised list. A linear stretch stays at one depth; at a fork
 * the child on the active path (else the newest) continues the line and the other children are
 * side branches, listed first and one level deeper, so the active path reads as one straight run.
 * Iterative, because a session may be tens of thousands of entries deep.
 */

export interface TreeIndex {
  byId: Map<string, Entry>;
  children: Record<string, string[]>;
  roots: string[];
  onPath: Set<string>;
  /** The leaf as shown: the session's leaf, or the nearest shown entry above it. */
  leafId: string | null;
  labels: Record<string, string>;
}

export function indexSnapshot(snapshot: Snapshot): TreeIndex {
  const byId = new Map<string, Entry>();
  for (const e of snapshot.entries) byId.set(e.id, e);
  // A label moves the leaf onto itself, but labels are not rows: mark the entry it hangs from.
  let leafId = snapshot.session.leafEntryId;
  for (let e = leafId ? byId.get(leafId) : undefined; e && hidden(e); e = e.parentId ? byId.get(e.parentId) : undefined) {
    leafId = e.parentId;
  }
  return {
    byId,
    children: snapshot.childrenByParentId,
    roots: snapshot.childrenByParentId[""] ?? snapshot.entries.filter((e) => e.parentId === null).map((e) => e.id),
    onPath: new Set(snapshot.activePath),
    leafId,
    labels: snapshot.labelsByEntryId,
  };
}

/** Label entries are shown as chips on their targets, not as rows of their own. */
function hidden(entry: Entry): boolean {
  return entry.type === "label";
}

export interface TreeRow {
  entry: Entry;
  depth: number;
  /** Side branches starting at this entry (0 when it is not a fork). */
  sideBranches: number;
  onPath: boolean;
  /** First entry of a side branch. */
  branchStart: boolean;
}

/**
 * Every row with all branches open, in display order. A fork's side branches are the rows right
 * after it, up to `sideEnd[fork]` (where its continuation starts), so collapsing a fork is skipping
 * one range: no re-walk of the tree and no new row objects per interaction.
 */
export interface TreeLayout {
  rows: TreeRow[];
  sideEnd: Int32Array;
  positionOf: Map<string, number>;
}

export function layoutTree(index: TreeIndex): TreeLayout {
  const rows: TreeRow[] = [];
  const sideEnd = new Int32Array(index.byId.size + 1);
  type Item = { id: string; depth: number; branchStart: boolean; forkRow: number };
  const stack: Item[] = [];
  const pushChildren = (ids: readonly string[], depth: number, forkRow: number) => {
    const main = ids.find((id) => index.onPath.has(id)) ?? ids[ids.length - 1];
    // LIFO: the continuation goes on first so it is listed after every side branch.
    if (main !== undefined) stack.push({ id: main, depth, branchStart: false, forkRow });
    for (let i = ids.length - 1; i >= 0; i--) {
      const id = ids[i] as string;
      if (id !== main) stack.push({ id, depth: depth + 1, branchStart: true, forkRow: -1 });
    }
  };
  pushChildren(index.roots, 0, -1);
  while (stack.length > 0) {
    const { id, depth, branchStart, forkRow } = stack.pop() as Item;
    if (forkRow >= 0) sideEnd[forkRow] = rows.length;
    const entry = index.byId.get(id);
    if (!entry) continue;
    const kids = index.children[id] ?? [];
    let at = -1;
    if (!hidden(entry)) {
      at = rows.length;
      rows.push({ entry, depth, sideBranches: Math.max(0, kids.length - 1), onPath: index.onPath.has(id), branchStart });
      sideEnd[at] = at + 1;
    }
    if (kids.length > 0) pushChildren(kids, depth, kids.length > 1 ? at : -1);
  }
  const positionOf = new Map<string, number>();
  for (const [i, row] of rows.entries()) positionOf.set(row.entry.id, i);
  return { rows, sideEnd, positionOf };
}

/** The positions (in `layout.rows`) of the rows shown when the forks in `collapsed` hide their side branches. */
export function visibleRows(layout: TreeLayout, collapsed: ReadonlySet<string>): Int32Array {
  const out = new Int32Array(layout.rows.length);
  let n = 0;
  for (let i = 0; i < layout.rows.length; ) {
    out[n++] = i;
    const row = layout.rows[i] as TreeRow;
    i = row.sideBranches > 0 && collapsed.has(row.entry.id) ? (layout.sideEnd[i] as number) : i + 1;
  }
  return out.subarray(0, n);
}

/** Where row `position` is among the visible rows (they are in increasing order), or undefined when hidden. */
export function visibleIndexOf(visible: Int32Array, position: number): number | undefined {
  let lo = 0;
  let hi = visible.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = visible[mid] as number;
    if (v === position) return mid;
    if (v < position) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const part of content as Array<{ type?: string; text?: string; toolName?: string }>) {
    if (part.type === "text" || part.type === "reasoning") out += `${part.text ?? ""} `;
    else if (part.type === "tool-call") out += `→ ${part.toolName ?? "tool"}() `;
    else if (part.type === "tool-result") out += `← ${part.toolName ?? "tool"} `;
  }
  return out;
}

/** A one-line preview without Markdown's emphasis, code and heading marks (the row is plain text). */
export function plain(text: string): string {
  return text.replace(/\*\*|__|`+/g, "").replace(/(^|\n)\s*#{1,6}\s+/g, "$1");
}

/** What a message's `goal` calls changed, in words; undefined when it made none. */
function goalCallSummary(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const said: string[] = [];
  for (const part of content as Array<{ type?: string; toolName?: string; input?: unknown }>) {
    if (part.type !== "tool-call" || part.toolName !== "goal") continue;
    const s = goalSummary("goal", part.input ?? {});
    if (s) said.push(s);
  }
  return said.length > 0 ? said.join(" · ") : undefined;
}

/** Arbor's own records in words: a step's file changes, a revert, a todo list; others by their type. */
function describeCustom(customType: string, data: unknown): string {
  const d = (typeof data === "object" && data !== null ? data : {}) as { files?: unknown; todos?: unknown; to?: unknown };
  switch (customType) {
    case "arbor.patch": {
      const files = Array.isArray(d.files) ? d.files.map((f: { path?: unknown }) => String(f?.path)) : [];
      return `Files changed: ${files.join(", ") || "none"}`;
    }
    case "arbor.revert":
      return `Files reverted to before ${String(d.to ?? "an earlier entry")}`;
    case "arbor.todos": {
      const todos = Array.isArray(d.todos) ? (d.todos as Array<{ status?: unknown }>) : [];
      return `Todos: ${todos.filter((t) => t?.status === "completed").length} of ${todos.length} done`;
    }
    default:
      return `Custom: ${customType}`;
  }
}

/** A one-line description of an entry for its row. */
export function describeEntry(entry: Entry): string {
  switch (entry.type) {
    case "message": {
      const goal = goalCallSummary(entry.message.content);
      if (goal) return goal;
      if (entry.message.description && entry.message.role !== "user") return entry.message.description;
      const text = textOf(entry.message.content);
      const steered = entry.message.role === "user" ? steeringText(text.trimEnd()) : undefined;
      return steered !== undefined ? `Steering: ${plain(steered.slice(0, 190))}` : plain(text.slice(0, 200));
    }
    case "compaction":
      return `Compaction: ${plain(entry.summary.slice(0, 160))}`;
    case "branch_summary":
      return `Branch summary: ${entry.summary.slice(0, 160)}`;
    case "model_change":
      return `Model → ${entry.model}`;
    case "thinking_level_change":
      return `Thinking → ${entry.thinkingLevel}`;
    case "session_info":
      return entry.title ? `Title: ${entry.title}` : "Session info";
    case "custom":
      return describeCustom(entry.customType, entry.data);
    case "custom_message":
      return textOf(entry.content).slice(0, 200);
    case "subagent_batch":
      return `Sub-agents (${entry.mode}): ${entry.tasks.length}`;
    case "subagent_result":
      return `Sub-agent ${entry.status}: ${plain(entry.summary.slice(0, 160))}`;
    case "label":
      return `Label ${entry.label ?? "(cleared)"}`;
  }
}

/** The short type tag of a row: the role for messages, else the entry type. */
export function entryTag(entry: Entry): string {
  return entry.type === "message" ? entry.message.role : entry.type.replace("_", " ");
}
