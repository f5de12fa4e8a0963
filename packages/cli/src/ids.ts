import { ArborError, type Store } from "@arbor/core/open";
import { assertEntryId, assertSessionId } from "@arbor/core/wire";

/** How many candidates an ambiguous prefix lists before saying how many more there are. */
const SHOWN_CANDIDATES = 8;

/** Sessions read per page while looking for a prefix (the store's largest page). */
const PAGE = 1000;

function candidatesText(ids: readonly string[]): string {
  const shown = ids.slice(0, SHOWN_CANDIDATES).join(", ");
  return ids.length > SHOWN_CANDIDATES ? `${shown} and ${ids.length - SHOWN_CANDIDATES} more` : shown;
}

/** Errors that say a session is there but cannot be read: it exists, and `sessions rm` must reach it. */
const DAMAGE_CODES: ReadonlySet<string> = new Set(["corrupt_session", "unsupported_version"]);

async function sessionExists(store: Store, id: string): Promise<boolean> {
  try {
    return (await store.getSession(id)) !== undefined;
  } catch (err) {
    if (err instanceof ArborError && DAMAGE_CODES.has(err.code)) return true;
    throw err;
  }
}

/**
 * A session id as the user typed it: the whole id, or, like git, any prefix that only one session
 * starts with. An exact id wins over prefixes; a prefix of several is an error listing them.
 */
export async function resolveSessionId(store: Store, given: string): Promise<string> {
  assertSessionId(given);
  if (await sessionExists(store, given)) return given;
  const matches: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ limit: PAGE, ...(cursor !== undefined ? { cursor } : {}) });
    for (const s of page.sessions) if (s.id.startsWith(given)) matches.push(s.id);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) throw new ArborError("session_not_found", `Session ${given} does not exist.`);
  // An imported session's sub-traces are named `<its id>@…`: every prefix of the session's id is
  // also one of theirs, so a prefix that names one session and only its sub-traces names the session.
  const parent = matches.find((m) => matches.every((o) => o === m || o.startsWith(`${m}@`)));
  if (parent !== undefined) return parent;
  matches.sort();
  throw new ArborError(
    "invalid_id",
    `Session id prefix ${given} is ambiguous: ${matches.length} sessions start with it (${candidatesText(matches)}). Type more of the id.`,
  );
}

/** An entry id of a session, whole or as a prefix only one of its entries starts with (see `resolveSessionId`). */
export async function resolveEntryId(store: Store, sessionId: string, given: string): Promise<string> {
  assertEntryId(given);
  const entries = await store.listEntries(sessionId);
  if (entries.some((e) => e.id === given)) return given;
  const matches = entries.filter((e) => e.id.startsWith(given)).map((e) => e.id);
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) {
    throw new ArborError(
      "entry_not_found",
      `No entry of session ${sessionId} has the id or id prefix ${given}; 'arbor sessions tree ${sessionId}' lists them.`,
    );
  }
  matches.sort();
  throw new ArborError(
    "invalid_id",
    `Entry id prefix ${given} is ambiguous in session ${sessionId}: ${matches.length} entries start with it (${candidatesText(matches)}). Type more of the id.`,
  );
}

/**
 * An approval id as `arbor approvals list` printed it, whole or as a prefix only one of the listed
 * approvals starts with. One that matches none is returned as given, so the revocation itself
 * reports it as not found, naming the scopes it looked in.
 */
export function resolveApprovalId(approvals: readonly { id: string }[], given: string): string {
  if (approvals.some((a) => a.id === given)) return given;
  const matches = approvals.filter((a) => a.id.startsWith(given)).map((a) => a.id);
  if (matches.length === 0) return given;
  if (matches.length === 1) return matches[0] as string;
  matches.sort();
  throw new ArborError(
    "invalid_id",
    `Approval id prefix ${given} is ambiguous: ${matches.length} approvals start with it (${candidatesText(matches)}). Type more of the id.`,
  );
}
