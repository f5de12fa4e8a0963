import type { Entry } from "../model/entry.js";
import { openSnapshots } from "./git-snapshots.js";
import { activePathOf, checkOwnWorkspace, checkRecorded } from "./revert-checks.js";
import { patchesOn, type RevertOptions, type RevertResult, targetIndex } from "./revert-path.js";
import { revertScoped } from "./revert-scoped.js";
import { REVERT_ENTRY_TYPE, type RevertData } from "./snapshot-entry.js";

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
