import type { Entry, Snapshot } from "@arbor/core";
import { describeEntry } from "../tree/flatten.js";

/** An entry a comparison can start from: a branch's tip, or a labelled entry. */
export interface BranchChoice {
  id: string;
  title: string;
  onActivePath: boolean;
}

/** The ends of the tree's branches (entries without children) and labelled entries, the active leaf first. */
export function branchChoices(snapshot: Snapshot): BranchChoice[] {
  const active = new Set(snapshot.activePath);
  const leaf = snapshot.session.leafEntryId;
  const out: BranchChoice[] = [];
  for (const entry of snapshot.entries) {
    const isTip = (snapshot.childrenByParentId[entry.id] ?? []).length === 0;
    const label = snapshot.labelsByEntryId[entry.id];
    if (!isTip && label === undefined) continue;
    if (entry.type === "label") continue;
    const text = describeEntry(entry).replace(/\s+/g, " ").trim();
    const title = `${label ? `[${label}] ` : ""}${entry.id === leaf ? "active leaf: " : ""}${text.slice(0, 70) || entry.type}`;
    out.push({ id: entry.id, title, onActivePath: active.has(entry.id) });
  }
  return out.sort((a, b) => Number(b.id === leaf) - Number(a.id === leaf));
}

/** Root → entry, following parent links. */
export function pathTo(byId: ReadonlyMap<string, Entry>, id: string): Entry[] {
  const path: Entry[] = [];
  let at = byId.get(id);
  while (at) {
    path.push(at);
    at = at.parentId === null ? undefined : byId.get(at.parentId);
  }
  return path.reverse();
}

export interface Comparison {
  /** The entries both paths share, root first. */
  shared: Entry[];
  /** Each path's own entries after the fork. */
  a: Entry[];
  b: Entry[];
}

export function comparePaths(a: readonly Entry[], b: readonly Entry[]): Comparison {
  let common = 0;
  while (common < a.length && common < b.length && a[common]?.id === b[common]?.id) common++;
  return { shared: a.slice(0, common), a: a.slice(common), b: b.slice(common) };
}

export interface SideTotals {
  messages: number;
  toolCalls: number;
  tokens: number;
  cost: number;
}

/** What a side of the comparison did: its messages, tool calls, tokens and cost. */
export function sideTotals(entries: readonly Entry[]): SideTotals {
  const totals: SideTotals = { messages: 0, toolCalls: 0, tokens: 0, cost: 0 };
  for (const e of entries) {
    if (e.type !== "message") continue;
    totals.messages++;
    const m = e.message;
    if (m.role === "assistant") totals.toolCalls += m.content.filter((p) => p.type === "tool-call").length;
    if (m.tokens) totals.tokens += m.tokens.input + m.tokens.output;
    totals.cost += m.cost ?? 0;
  }
  return totals;
}

/** Tokens of one entry (an assistant message's input + output), if it has any. */
export function entryTokens(entry: Entry): number | undefined {
  return entry.type === "message" && entry.message.tokens ? entry.message.tokens.input + entry.message.tokens.output : undefined;
}

/** The tools an entry called, by name. */
export function entryTools(entry: Entry): string[] {
  if (entry.type !== "message" || entry.message.role !== "assistant") return [];
  return entry.message.content.flatMap((p) => (p.type === "tool-call" ? [p.toolName] : []));
}
