import type { Entry, Store } from "@arbor/core";
import { z } from "zod";
import { ApiError } from "../../errors.js";

/**
 * What a response id names, so `previous_response_id` is "continue from where that response ended"
 * (a branch when that entry is not the leaf any more). A response's id is fixed before its run has
 * written anything, so it names its turn (the user message the run answered), and where the turn
 * ended is read from the session: the chain of the entries the run wrote after it. A compaction
 * names its entry instead. `unstored`: made with `store: false`, so not to be read back.
 */
export type ResponseRef = {
  sessionId: string;
  unstored?: true;
  /** Which response of its turn: a turn that paused (function calls, an approval) goes on in a second, a third. */
  part?: number;
} & ({ kind: "turn"; userEntryId: string } | { kind: "entry"; entryId: string });

const RefWire = z.object({
  s: z.string().min(1),
  t: z.string().min(1).optional(),
  e: z.string().min(1).optional(),
  u: z.literal(1).optional(),
  n: z.number().int().min(2).optional(),
});

const PREFIX = "resp_";

/** The id is the ref itself (base64url JSON): nothing is kept beside the session to look it up. */
export function responseId(ref: ResponseRef): string {
  const wire: z.input<typeof RefWire> = {
    s: ref.sessionId,
    ...(ref.kind === "turn" ? { t: ref.userEntryId } : { e: ref.entryId }),
    ...(ref.unstored ? { u: 1 as const } : {}),
    ...(ref.part === undefined || ref.part < 2 ? {} : { n: ref.part }),
  };
  return PREFIX + Buffer.from(JSON.stringify(wire)).toString("base64url");
}

/** The ref a response id names; `invalid_id` for anything this server did not make. */
export function parseResponseId(id: string): ResponseRef {
  const bad = () =>
    new ApiError(
      "invalid_id",
      `${JSON.stringify(id.slice(0, 80))} is not a response id this server made (they start with ${PREFIX}).`,
    );
  if (!id.startsWith(PREFIX) || id.length > 1000) throw bad();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(id.slice(PREFIX.length), "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  const parsed = RefWire.safeParse(json);
  if (!parsed.success) throw bad();
  const { s, t, e, u, n } = parsed.data;
  const flag = { ...(u ? { unstored: true as const } : {}), ...(n === undefined ? {} : { part: n }) };
  if (t !== undefined && e === undefined) return { sessionId: s, kind: "turn", userEntryId: t, ...flag };
  if (e !== undefined && t === undefined) return { sessionId: s, kind: "entry", entryId: e, ...flag };
  throw bad();
}

/** A user's own message (not one Arbor wrote, like a compaction's continuation). */
export function isUserTurn(entry: Entry): boolean {
  return entry.type === "message" && entry.message.role === "user" && entry.message.synthetic !== true;
}

/**
 * The entries of a turn in order: its user message, then the chain the run wrote after it, each the
 * earliest child of the one before (later children are branches made afterwards), up to the next
 * user message. Undefined when the session or the entry is gone.
 */
export async function turnEntries(store: Store, ref: ResponseRef): Promise<Entry[] | undefined> {
  const entries = await store.listEntries(ref.sessionId);
  const byId = new Map(entries.map((e) => [e.id, e]));
  if (ref.kind === "entry") {
    const entry = byId.get(ref.entryId);
    return entry ? [entry] : undefined;
  }
  const first = byId.get(ref.userEntryId);
  if (!first) return undefined;
  const firstChild = new Map<string, Entry>();
  // Entries are listed in the order they were written, so the first seen child is the earliest.
  for (const entry of entries) {
    if (entry.parentId !== null && !firstChild.has(entry.parentId)) firstChild.set(entry.parentId, entry);
  }
  const turn = [first];
  for (let next = firstChild.get(first.id); next && !isUserTurn(next); next = firstChild.get(next.id)) turn.push(next);
  return turn;
}

/** The newest entry on the session's live path that `pick` accepts, read leaf first (usually a step or two). */
export async function nearestOnPath<T>(
  store: Store,
  sessionId: string,
  pick: (entry: Entry) => T | undefined,
): Promise<T | undefined> {
  const meta = await store.getSession(sessionId);
  for (let id = meta?.leafEntryId ?? null; id !== null; ) {
    const entry = await store.getEntry(sessionId, id);
    if (!entry) break;
    const picked = pick(entry);
    if (picked !== undefined) return picked;
    id = entry.parentId;
  }
  return undefined;
}
