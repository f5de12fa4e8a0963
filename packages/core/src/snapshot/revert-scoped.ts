import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import { openSnapshots } from "./git-snapshots.js";
import { checkOwnWorkspace, checkRecorded, workspacePath } from "./revert-checks.js";
import { patchesOn, type RevertOptions, type RevertResult, targetIndex } from "./revert-path.js";
import { REVERT_ENTRY_TYPE, type RevertData } from "./snapshot-entry.js";

/**
 * A revert of one file or one step, which leaves the conversation where it is: the change is
 * applied to the workspace as it is now and recorded by an `arbor.revert` entry at the leaf, so
 * `unrevert` can take it back again.
 *
 * - `step`: the diff that step's snapshot pair recorded, taken back hunk by hunk; what other steps
 *   (or the user) changed since, in the same files too, stays. A hunk that no longer fits is a
 *   `revert_conflict`, and nothing is written.
 * - `file`: that file as it was before `to` (default the last user message), or before `step`
 *   when both are given; only its recorded history is read, and only inside the workspace.
 */
export async function revertScoped(options: RevertOptions, path: readonly Entry[]): Promise<RevertResult> {
  const { store, sessionId } = options;
  // A path that leaves the workspace is refused before anything else is looked at.
  const cwd = (await store.getSession(sessionId))?.cwd;
  if (options.file !== undefined) workspacePath(cwd ?? process.cwd(), options.file);
  const patches = patchesOn(path);
  let chosen: (typeof patches)[number] | undefined;
  if (options.step !== undefined) {
    chosen = patches.find((p) => p.entry.id === options.step || p.data.messageEntryId === options.step);
    if (!chosen) {
      throw new ArborError(
        "entry_not_found",
        `No step on session ${sessionId}'s active path with the id ${options.step} changed files; \`arbor sessions diff ${sessionId}\` and \`arbor sessions tree ${sessionId}\` show its steps.`,
      );
    }
  } else {
    const index = targetIndex(path, options.to, sessionId);
    chosen = patches.find((p) => p.i >= index);
  }
  const leaf = path.at(-1)?.id ?? null;
  const target = options.step !== undefined ? chosen!.entry.id : path[targetIndex(path, options.to, sessionId)]!.id;
  if (!chosen || leaf === null) {
    // Nothing changed files from `to` on: there is nothing to take back, and nothing is recorded.
    return { sessionId, to: target, leaf: leaf ?? "", files: 0, scope: "file" };
  }
  const { workspace } = chosen.data;
  await checkOwnWorkspace(store, sessionId, workspace);
  const snapshots = await openSnapshots({ home: options.home, workspace, sessionId });
  const file = options.file === undefined ? undefined : workspacePath(snapshots.workspace, options.file);
  await checkRecorded(snapshots, chosen.data.before, sessionId);
  const saved = await snapshots.track();
  let changed: string[];
  if (options.step !== undefined) {
    await checkRecorded(snapshots, chosen.data.after, sessionId);
    changed = await snapshots.applyDiff(chosen.data.after, chosen.data.before, file ? [file] : undefined);
  } else {
    // The file as it is now, to the file as it was before `to`.
    changed = await snapshots.applyDiff(saved, chosen.data.before, [file!]);
  }
  const restored = await snapshots.track();
  const scope = options.step !== undefined ? "step" : "file";
  const data: RevertData = {
    workspace,
    to: target,
    fromLeaf: leaf,
    saved,
    restored,
    scope,
    ...(file ? { file } : {}),
    ...(options.step !== undefined ? { step: chosen.entry.id } : {}),
  };
  let record: Entry;
  try {
    record = await store.appendEntry(sessionId, { type: "custom", customType: REVERT_ENTRY_TYPE, data });
  } catch (error) {
    // The session could not record the revert: the workspace goes back to how it was found.
    await snapshots.restore(restored, saved);
    throw error;
  }
  return { sessionId, to: target, leaf: record.id, workspace, files: changed.length, scope };
}
