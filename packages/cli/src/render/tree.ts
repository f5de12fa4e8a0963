import type { Entry, Snapshot } from "@arbor/core";
import { summarizeEntry } from "./entry.js";
import { PLAIN, type Style } from "./style.js";
import { oneLine, truncate, uniqueShortIds } from "./text.js";

/** What the tree view needs from a snapshot. */
export type TreeSource = Pick<Snapshot, "entries" | "activePath" | "childrenByParentId" | "labelsByEntryId">;

export interface TreeOptions {
  style?: Style;
  /** Characters of each entry id shown (default 8). */
  idLength?: number;
  /** Longest preview, in characters (default 80). */
  maxPreview?: number;
  /** When set (a terminal's width), previews are cut so that each line fits. */
  width?: number;
  /**
   * Deepest nesting drawn in full (default 24 levels); deeper branches keep their last levels behind
   * a `…` so one pathological tree cannot print lines thousands of characters wide.
   */
  maxIndent?: number;
}

// Every prefix segment is exactly SEG characters wide, which is what lets `capPrefix` cut by length.
const SEG = 3;
const BRANCH = "├─ ";
const LAST = "└─ ";
const PIPE = "│  ";
const SPACE = "   ";
const FOLD = "…  ";
const LEAF_MARK = " ← leaf";

function capPrefix(prefix: string, maxLevels: number): string {
  if (prefix.length <= maxLevels * SEG) return prefix;
  return FOLD + prefix.slice(prefix.length - (maxLevels - 1) * SEG);
}

interface Frame {
  id: string;
  /** Drawn before this entry's own line. */
  linePrefix: string;
  /** Drawn before the lines of this entry's descendants. */
  childPrefix: string;
}

/**
 * Draws the whole entry tree, one line per entry in depth-first order, children in append order:
 *
 * ```
 * * 1a2b3c4d user: hello
 * * 5e6f7a8b assistant: Hi! How can I help?
 * ├─   9c0d1e2f user: first try [draft]
 * │    3a4b5c6d assistant: answer one
 * └─ * 7e8f9a0b user: second try
 *    * 1c2d3e4f assistant: Done. ← leaf
 * ```
 *
 * An entry with one child continues in the same column; the children of an entry with several
 * are drawn with `├─` / `└─` one level deeper. Several roots (after `resetLeaf`) are drawn as
 * branches of the session. `*` (and bold, with a styled `Style`) marks the active path; the leaf
 * is marked `← leaf`. Iterative, so a 10,000-entry chain costs 10,000 steps and no stack.
 */
export function renderTree(source: TreeSource, opts: TreeOptions = {}): string[] {
  const style = opts.style ?? PLAIN;
  const idLength = opts.idLength ?? 8;
  const maxPreview = opts.maxPreview ?? 80;
  const maxIndent = Math.max(2, opts.maxIndent ?? 24);

  const byId = new Map<string, Entry>();
  for (const e of source.entries) byId.set(e.id, e);
  const short = uniqueShortIds(byId.keys(), idLength);
  const active = new Set(source.activePath);
  const leafId = source.activePath.at(-1);
  const children = (id: string): readonly string[] => source.childrenByParentId[id] ?? [];

  // Roots: entries without a parent, and (so that nothing is hidden in a damaged tree) entries whose
  // parent is missing.
  if (source.entries.length === 0) return ["(no entries)"];
  const roots = source.entries.filter((e) => e.parentId === null || !byId.has(e.parentId)).map((e) => e.id);
  const lines: string[] = [];

  const stack: Frame[] = [];
  const pushChildren = (ids: readonly string[], base: string): void => {
    if (ids.length === 1) {
      stack.push({ id: ids[0] as string, linePrefix: base, childPrefix: base });
      return;
    }
    // Reverse so that the first child is drawn first.
    for (let i = ids.length - 1; i >= 0; i--) {
      const last = i === ids.length - 1;
      stack.push({
        id: ids[i] as string,
        linePrefix: capPrefix(base + (last ? LAST : BRANCH), maxIndent),
        childPrefix: capPrefix(base + (last ? SPACE : PIPE), maxIndent),
      });
    }
  };

  const visited = new Set<string>();
  const drawFrom = (startIds: readonly string[]): void => {
    pushChildren(startIds, "");
    while (stack.length > 0) {
      const frame = stack.pop() as Frame;
      const entry = byId.get(frame.id);
      if (!entry || visited.has(frame.id)) continue;
      visited.add(frame.id);
      lines.push(renderLine(entry, frame.linePrefix));
      pushChildren(children(entry.id), frame.childPrefix);
    }
  };

  const renderLine = (entry: Entry, prefix: string): string => {
    const isActive = active.has(entry.id);
    const { kind, preview } = summarizeEntry(entry);
    const label = source.labelsByEntryId[entry.id];
    const labelText = label !== undefined ? ` [${oneLine(label)}]` : "";
    const leafText = entry.id === leafId ? LEAF_MARK : "";
    const head = `${isActive ? "*" : " "} ${short(entry.id)} ${kind}`;
    let room = maxPreview;
    if (opts.width !== undefined) {
      const fixed = prefix.length + head.length + 2 + labelText.length + leafText.length;
      room = Math.min(room, Math.max(10, opts.width - fixed));
    }
    const body = `${head}${preview ? `: ${truncate(preview, room)}` : ""}${labelText}`;
    return `${prefix ? style.dim(prefix) : ""}${isActive ? style.bold(body) : body}${leafText}`;
  };

  drawFrom(roots);
  // Entries on a cycle are reachable from no root; draw them rather than hide them.
  if (visited.size < byId.size) drawFrom(source.entries.filter((e) => !visited.has(e.id)).map((e) => e.id));
  return lines;
}
