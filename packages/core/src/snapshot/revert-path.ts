import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { Store } from "../store/store.js";
import { customData } from "./revert-checks.js";
import { PATCH_ENTRY_TYPE, PatchDataSchema } from "./snapshot-entry.js";

// What a whole-session revert (revert.ts) and a file or step revert (revert-scoped.ts) share: kept
// apart from both so that neither imports the other back.

export interface RevertOptions {
  store: Store;
  sessionId: string;
  /** `$ARBOR_HOME`, where the snapshot histories are. */
  home: string;
  /** Take the session back to before this entry; default the last user message on the path. */
  to?: string;
  /**
   * Only this file (workspace-relative): put back as it was before `to`, or as it was before
   * `step`. The leaf stays where it is.
   */
  file?: string;
  /**
   * Only what this step changed (its `arbor.patch` entry, or the assistant message it names):
   * that change is taken back hunk by hunk, later changes stay. The leaf stays where it is.
   */
  step?: string;
}

export interface RevertResult {
  sessionId: string;
  /** The entry the session was taken back to before (the step's patch entry for a step revert). */
  to: string;
  /** The leaf now: the revert's own record. */
  leaf: string;
  workspace?: string;
  /** Files the revert changed in the workspace. */
  files: number;
  /** What was taken back. */
  scope: "session" | "file" | "step";
}

export interface UnrevertResult {
  sessionId: string;
  leaf: string | null;
  workspace?: string;
  files: number;
}

/** The path's `arbor.patch` entries with their place on it. */
export function patchesOn(path: readonly Entry[]) {
  return path.flatMap((entry, i) => {
    const data = customData(entry, PATCH_ENTRY_TYPE, PatchDataSchema);
    return data ? [{ i, entry, data }] : [];
  });
}

export function targetIndex(path: readonly Entry[], to: string | undefined, sessionId: string): number {
  if (to !== undefined) {
    const index = path.findIndex((entry) => entry.id === to);
    if (index < 0) {
      throw new ArborError(
        "entry_not_found",
        `Entry ${to} is not on session ${sessionId}'s active path; \`arbor sessions tree ${sessionId}\` lists its entries.`,
      );
    }
    return index;
  }
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "message" && entry.message.role === "user") return i;
  }
  throw new ArborError("entry_not_found", `Session ${sessionId} has no user message to revert to; pass --to <entry>.`);
}
