import { ArborError } from "../errors.js";
import {
  SESSION_FORMAT_VERSION,
  type SessionInit,
  SessionInitSchema,
  type SessionMeta,
  type SessionPatch,
  SessionPatchSchema,
  type StoreProvider,
} from "../model/session.js";
import { parseOrThrow } from "../model/validate.js";

export { compareNewestFirst, decodeCursor, encodeCursor, isAfterCursor, pageLimit } from "./session-page.js";

/** Meta of a session that has no entries yet. Pure: id and time come from the caller. */
export function newSessionMeta(init: SessionInit | undefined, provider: StoreProvider, id: string, now: string): SessionMeta {
  const i = parseOrThrow(SessionInitSchema, init ?? {}, "session init");
  const meta: SessionMeta = {
    version: SESSION_FORMAT_VERSION,
    id,
    provider,
    createdAt: now,
    updatedAt: now,
    rootEntryId: null,
    leafEntryId: null,
    mode: i.mode ?? "agent",
    agentType: i.agentType ?? "main",
    totalMessages: 0,
    totalTokens: 0,
    totalCost: 0,
  };
  for (const key of [
    "title",
    "cwd",
    "agentId",
    "task",
    "parentSessionId",
    "parentGoalId",
    "context",
    "status",
    "createdBy",
  ] as const) {
    if (i[key] !== undefined) (meta as Record<string, unknown>)[key] = i[key];
  }
  return meta;
}

/**
 * Built once: zod compiles a schema's fast path on its first parse, and a schema made per call (as
 * `.strict()` does) compiled it on every session update, a few milliseconds of each sub-trace.
 */
const StrictSessionPatchSchema = SessionPatchSchema.strict();

export function applySessionPatch(meta: SessionMeta, patch: SessionPatch, now: string): SessionMeta {
  if (patch === null || typeof patch !== "object") throw new ArborError("invalid_input", "A session patch must be an object.");
  const p = StrictSessionPatchSchema.safeParse(patch);
  if (!p.success) {
    const keys = Object.keys(patch).filter((k) => !(k in SessionPatchSchema.shape));
    const hint = keys.length ? ` (${keys.join(", ")} cannot be changed with updateSession)` : "";
    throw new ArborError("invalid_input", `Invalid session patch${hint}: ${p.error.issues[0]?.message ?? ""}`);
  }
  const next = { ...meta, updatedAt: now > meta.updatedAt ? now : meta.updatedAt };
  for (const [k, v] of Object.entries(p.data)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
  return next;
}
