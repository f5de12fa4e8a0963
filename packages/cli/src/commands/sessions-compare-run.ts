import type { Entry } from "@arbor/core";
import { ArborError, type Store } from "@arbor/core/open";
import { activePath } from "@arbor/core/session";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { summarizeEntry } from "../render/entry.js";
import { formatCount, formatTotalCost, hasUnpricedAnswer } from "../render/run-format.js";
import { oneLine, plural, truncate, uniqueShortIds } from "../render/text.js";
import type { CommandContext } from "./command.js";

/** One side of a comparison: a session's active path, or the path root → a given entry. */
interface Branch {
  /** As the user gave it, made whole: `session` or `session:entry`. */
  name: string;
  sessionId: string;
  path: Entry[];
  /** Entry ids as shown: each a prefix that names one entry of its session. */
  short: (id: string) => string;
}

/** `<session>` or `<session>:<entry>`; `:` cannot occur in a session id, so the split is unambiguous. */
export function splitSpec(spec: string): { session: string; entry: string | undefined } {
  const at = spec.indexOf(":");
  return at < 0 ? { session: spec, entry: undefined } : { session: spec.slice(0, at), entry: spec.slice(at + 1) };
}

async function readBranch(store: Store, spec: string): Promise<Branch> {
  const given = splitSpec(spec);
  const sessionId = await resolveSessionId(store, given.session);
  const entries = await store.listEntries(sessionId);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const leaf =
    given.entry === undefined
      ? ((await store.getSession(sessionId))?.leafEntryId ?? null)
      : await resolveEntryId(store, sessionId, given.entry);
  const path = activePath(leaf, (id) => byId.get(id));
  const short = uniqueShortIds(byId.keys());
  return { name: leaf === null ? sessionId : `${sessionId}:${short(leaf)}`, sessionId, path, short };
}

interface Side {
  branch: string;
  /** Entries after the point where the branches part. */
  entries: number;
  messages: number;
  tokens: { input: number; output: number };
  cost: number;
  /** False when a model answer of the branch had no price (its model is not in the catalog): `cost` leaves it out. */
  costKnown?: false;
  /** The last assistant text of the branch, where it ended up. */
  lastAnswer: string | undefined;
}

/**
 * A branch's own work: the entries after the shared part, without labels and session info. Those
 * are written at the leaf (`arbor sessions label`, a renamed session imported from pi); they are
 * bookkeeping, not work.
 */
function workOf(path: readonly Entry[], from: number): Entry[] {
  return path.slice(from).filter((e) => e.type !== "label" && e.type !== "session_info");
}

function sideOf(branch: Branch, from: number): Side {
  const own = workOf(branch.path, from);
  const side: Side = {
    branch: branch.name,
    entries: own.length,
    messages: 0,
    tokens: { input: 0, output: 0 },
    cost: 0,
    lastAnswer: undefined,
  };
  if (hasUnpricedAnswer(own)) side.costKnown = false;
  for (const e of own) {
    if (e.type !== "message") continue;
    side.messages++;
    side.tokens.input += e.message.tokens?.input ?? 0;
    side.tokens.output += e.message.tokens?.output ?? 0;
    side.cost += e.message.cost ?? 0;
    if (e.message.role === "assistant") {
      const text = e.message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      if (text.trim() !== "") side.lastAnswer = text;
    }
  }
  return side;
}

/** How many entries both paths start with. */
function sharedLength(a: readonly Entry[], b: readonly Entry[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n]?.id === b[n]?.id) n++;
  return n;
}

function sideLines(title: string, side: Side, branch: Branch, from: number): string[] {
  const path = branch.path;
  const stats = `${plural(side.messages, "message", "messages")}, ${formatCount(side.tokens.input)} in / ${formatCount(side.tokens.output)} out tokens, ${formatTotalCost(side.cost, side.costKnown === false)}`;
  const lines = [`${title} ${side.branch}: ${plural(side.entries, "entry", "entries")} of its own (${stats})`];
  const own = workOf(path, from);
  if (own.length === 0) lines.push("  (nothing after the shared part)");
  let kindWidth = 0;
  for (const e of own) kindWidth = Math.max(kindWidth, summarizeEntry(e).kind.length);
  for (const e of own) {
    const { kind, preview } = summarizeEntry(e);
    lines.push(`  ${branch.short(e.id)}  ${kind.padEnd(kindWidth)}  ${truncate(preview, 90)}`.trimEnd());
  }
  return lines;
}

export async function runSessionsCompare(ctx: CommandContext): Promise<void> {
  const a = await readBranch(ctx.store, ctx.operands[0] as string);
  const b = await readBranch(ctx.store, ctx.operands[1] as string);
  if (a.path.length === 0 && b.path.length === 0) {
    throw new ArborError("invalid_input", "Both branches are empty: there is nothing to compare.");
  }
  const shared = sharedLength(a.path, b.path);
  const partedAt = shared === 0 ? null : (a.path[shared - 1]?.id ?? null);
  const sideA = sideOf(a, shared);
  const sideB = sideOf(b, shared);
  if (ctx.json) {
    writeJson(ctx.io.stdout, { a: sideA, b: sideB, shared, partedAt });
    return;
  }
  const head =
    partedAt === null
      ? "The branches share nothing: they part at the root."
      : `The branches share ${plural(shared, "entry", "entries")} and part after ${a.short(partedAt)}.`;
  const answer = (side: Side) =>
    `  last answer: ${side.lastAnswer === undefined ? "(none)" : truncate(oneLine(side.lastAnswer), 100)}`;
  writeLines(ctx.io.stdout, [
    head,
    "",
    ...sideLines("A", sideA, a, shared),
    answer(sideA),
    "",
    ...sideLines("B", sideB, b, shared),
    answer(sideB),
  ]);
}
