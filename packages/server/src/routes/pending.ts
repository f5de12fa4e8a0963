import { ArborError } from "@arbor/core";
import type { Context } from "hono";
import type { ServerContext } from "../context.js";
import { principalOf } from "../http/principal.js";

/**
 * What runs wait on that the caller may see: in the session named (which must exist, or the answer
 * is a 404 rather than an empty list), else in every session.
 */
export async function visiblePending<T>(
  { runtime, store }: ServerContext,
  c: Context,
  sessionId: string | undefined,
  list: (sessionId: string | undefined) => Promise<T[]>,
  sessionOf: (item: T) => string,
): Promise<T[]> {
  if (sessionId !== undefined && !(await store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  return runtime.access.visible(principalOf(c), await list(sessionId), sessionOf);
}
