import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { Store } from "../store/store.js";
import { openSnapshots } from "./git-snapshots.js";
import { activePathOf, checkOwnWorkspace, checkRecorded, customData } from "./revert-checks.js";
import { revertScoped } from "./revert-scoped.js";
import { PATCH_ENTRY_TYPE, PatchDataSchema, REVERT_ENTRY_TYPE, type RevertData } from "./snapshot-entry.js";

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

/**
 * Puts the workspace back as it was before `to` and moves the session's leaf to that entry's
 * parent, recording an `arbor.revert` entry there; with `file` or `step`, takes back only that (see
 * `revertScoped`). The caller holds the session (`runtime.sessions.revert` runs it in the session's
 * slot, under its lease). Everything is checked before anything changes: an entry that is not on
 * the active path is an error and leaves workspace and session as they were. The workspace is
 * snapshotted first, so `unrevertSession` can restore it even if files were edited after the run.
 */
export async function revertSession(options: RevertOptions): Promise<RevertResult> {
  const { store, sessionId } = options;
  const path = await activePathOf(store, sessionId);
  if (options.step !== undefined || options.file !== undefined) return revertScoped(options, path);
  const index = targetIndex(path, options.to, sessionId);
  const target = path[index]!;
  const patches = patchesOn(path);
  // The workspace before `to` is the start of the first change made at or after it; with no change
  // after it, the workspace is as it was and only the leaf moves.
  const firstAfter = patches.find((p) => p.i >= index);
  const workspace = (firstAfter ?? patches.at(-1))?.data.workspace;
  if (workspace) await checkOwnWorkspace(store, sessionId, workspace);
  let saved: string | null = null;
  let restored: string | null = null;
  let files = 0;
  let undo: (() => Promise<void>) | undefined;
  if (workspace && firstAfter) {
    const snapshots = await openSnapshots({ home: options.home, workspace, sessionId });
    restored = firstAfter.data.before;
    await checkRecorded(snapshots, restored, sessionId);
    saved = await snapshots.track();
    files = (await snapshots.patch(saved, restored)).length;
    await snapshots.restore(saved, restored);
    undo = async () => snapshots.restore(await snapshots.track(), saved!);
  }
  const data: RevertData = {
    workspace: workspace ?? "",
    to: target.id,
    fromLeaf: path.at(-1)?.id ?? null,
    saved,
    restored,
    scope: "session",
  };
  let record: Entry;
  try {
    record = await store.appendEntry(sessionId, {
      type: "custom",
      customType: REVERT_ENTRY_TYPE,
      data,
      parentId: target.parentId,
    });
  } catch (error) {
    // The session could not record the revert: the workspace goes back to how it was found.
    await undo?.();
    throw error;
  }
  return { sessionId, to: target.id, leaf: record.id, ...(workspace ? { workspace } : {}), files, scope: "session" };
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
