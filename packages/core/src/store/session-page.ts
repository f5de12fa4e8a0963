// Paging through sessions, apart from the session schemas: a listing checks its limit and cursor
// before it reads anything, and an empty store has nothing to read (nor to validate).
import { ArborError } from "../errors.js";
import type { SessionMeta } from "../model/session.js";

/** Cursor for newest-first paging: the (createdAt, id) of the last session on the page. */
export function encodeCursor(meta: Pick<SessionMeta, "createdAt" | "id">): string {
  return Buffer.from(JSON.stringify([meta.createdAt, meta.id])).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string") {
      return { createdAt: v[0], id: v[1] };
    }
  } catch {
    // fall through to the typed error
  }
  throw new ArborError("invalid_cursor", "The cursor is not one this store returned; start again without it.");
}

/** True when `meta` comes after the cursor position in newest-first order. */
export function isAfterCursor(meta: Pick<SessionMeta, "createdAt" | "id">, c: { createdAt: string; id: string }): boolean {
  return meta.createdAt < c.createdAt || (meta.createdAt === c.createdAt && meta.id < c.id);
}

export function compareNewestFirst(a: SessionMeta, b: SessionMeta): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new ArborError("invalid_input", `limit must be a whole number from 1 to 1000, got ${limit}.`);
  }
  return limit;
}
