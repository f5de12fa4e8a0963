import type { Entry, SessionMeta, Snapshot } from "@arbor/core";
import { summarizeEntry } from "./entry.js";
import { formatTotalCost, hasUnpricedAnswer } from "./run-format.js";
import { formatTime, oneLine, plural, truncate, uniqueShortIds } from "./text.js";

export interface ShowOptions {
  /** Longest preview, in characters (default 100). */
  maxPreview?: number;
  /** Blocks shown between the header and the active path (the plan, the sub-traces). */
  sections?: readonly (readonly string[])[];
}

/** `Key  value` lines describing a session; fields it does not have are left out. */
export function sessionHeader(
  meta: SessionMeta,
  snapshot?: Pick<Snapshot, "entries" | "activePath" | "childrenByParentId">,
): string[] {
  const rows: [string, string][] = [["session", meta.id]];
  if (meta.title) rows.push(["title", oneLine(meta.title)]);
  if (meta.task) rows.push(["task", truncate(oneLine(meta.task), 200)]);
  rows.push(["agent", `${meta.agentType} (${meta.mode})${meta.agentId ? `, ${oneLine(meta.agentId)}` : ""}`]);
  if (meta.status) rows.push(["status", meta.status]);
  if (meta.parentSessionId) rows.push(["parent", meta.parentSessionId]);
  if (meta.branchedFrom) rows.push(["branched", `from ${meta.branchedFrom.sessionId} at ${meta.branchedFrom.entryId}`]);
  if (meta.cwd) rows.push(["cwd", meta.cwd]);
  rows.push(["created", formatTime(meta.createdAt)]);
  rows.push(["updated", formatTime(meta.updatedAt)]);
  if (snapshot) {
    let branchPoints = 0;
    for (const ids of Object.values(snapshot.childrenByParentId)) if (ids.length > 1) branchPoints++;
    rows.push([
      "entries",
      `${snapshot.entries.length} (${snapshot.activePath.length} on the active path, ${plural(branchPoints, "branch point", "branch points")})`,
    ]);
  }
  rows.push(["messages", String(meta.totalMessages)]);
  if (meta.totalTokens > 0 || meta.totalCost > 0) {
    const unpriced = snapshot !== undefined && hasUnpricedAnswer(snapshot.entries);
    rows.push(["usage", `${meta.totalTokens} tokens, ${formatTotalCost(meta.totalCost, unpriced)}`]);
  }
  rows.push(["leaf", meta.leafEntryId ?? "(none)"]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}

/**
 * The human view of a session: its meta, then the active path root → leaf, one line per entry
 * (short id, role or entry type, first line, label).
 */
export function renderShow(snapshot: Snapshot, opts: ShowOptions = {}): string[] {
  const maxPreview = opts.maxPreview ?? 100;
  const lines = sessionHeader(snapshot.session, snapshot);
  for (const section of opts.sections ?? []) if (section.length > 0) lines.push("", ...section);
  const byId = new Map<string, Entry>();
  for (const e of snapshot.entries) byId.set(e.id, e);
  const path = snapshot.activePath.map((id) => byId.get(id)).filter((e): e is Entry => e !== undefined);
  lines.push("");
  if (path.length === 0) {
    lines.push("The active path is empty.");
    return lines;
  }
  lines.push(`Active path (${plural(path.length, "entry", "entries")}, root first):`);
  // A loop, not Math.max(...): spreading a 200,000-entry path overflows the call stack.
  let kindWidth = 0;
  for (const e of path) kindWidth = Math.max(kindWidth, summarizeEntry(e).kind.length);
  const short = uniqueShortIds(byId.keys());
  for (const e of path) {
    const { kind, preview } = summarizeEntry(e);
    const label = snapshot.labelsByEntryId[e.id];
    const text = `${preview ? truncate(preview, maxPreview) : ""}${label !== undefined ? ` [${oneLine(label)}]` : ""}`;
    lines.push(`  ${short(e.id)}  ${kind.padEnd(kindWidth)}  ${text}`.trimEnd());
  }
  return lines;
}
