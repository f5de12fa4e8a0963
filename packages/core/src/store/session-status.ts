import type { SessionMeta } from "../model/session.js";

/** Parents walked to find a live driver; sub-traces nest a few levels, and a cycle must not hang a read. */
const MAX_DEPTH = 64;

/**
 * A session stored as `running` is really running only while something drives it: a live lease on
 * it or on one of its parents (a sub-trace runs under its parent's run). Otherwise its process died
 * mid-run and it reads as `interrupted`, which a new run or a resume then overwrites. Pure apart
 * from the two lookups it is given.
 */
export function reconcileStatus(
  meta: SessionMeta,
  driven: (sessionId: string) => boolean,
  parentOf: (sessionId: string) => string | undefined,
): SessionMeta {
  if (meta.status !== "running") return meta;
  let id: string | undefined = meta.id;
  for (let depth = 0; id !== undefined && depth < MAX_DEPTH; depth++) {
    if (driven(id)) return meta;
    id = id === meta.id ? meta.parentSessionId : parentOf(id);
  }
  return { ...meta, status: "interrupted" };
}
