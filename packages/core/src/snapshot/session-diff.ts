import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { Store } from "../store/store.js";
import { openSnapshots } from "./git-snapshots.js";
import { checkOwnWorkspace, checkRecorded, customData } from "./revert-checks.js";
import { type FilePatch, PATCH_ENTRY_TYPE, PatchDataSchema } from "./snapshot-entry.js";

export interface SessionDiff {
  sessionId: string;
  /** The session's workspace; absent when its path changed no file. */
  workspace?: string;
  /** Snapshot trees: the workspace before the path's first change and after its last. */
  from?: string;
  to?: string;
  /** The steps on the active path that changed files. */
  steps: number;
  /** Every file the path changed, from before its first step to after its last, with its diff. */
  files: FilePatch[];
}

/**
 * What the session's active path did to its workspace, as one diff: from the snapshot before its
 * first step that changed files to the one after its last. A file changed and changed back is not
 * in it; files the user changed between steps are (the steps' snapshots saw them). Read-only: it
 * needs no lease, and reads trees the session's own snapshot history recorded, in its own
 * workspace only.
 */
export async function sessionDiff(options: { store: Store; sessionId: string; home: string }): Promise<SessionDiff> {
  const { store, sessionId } = options;
  if (!(await store.getSession(sessionId))) throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  const patches = (await store.getActivePath(sessionId)).flatMap((entry: Entry) => {
    const data = customData(entry, PATCH_ENTRY_TYPE, PatchDataSchema);
    return data ? [data] : [];
  });
  const first = patches[0];
  const last = patches.at(-1);
  if (!first || !last) return { sessionId, steps: 0, files: [] };
  await checkOwnWorkspace(store, sessionId, first.workspace);
  const snapshots = await openSnapshots({ home: options.home, workspace: first.workspace, sessionId });
  await checkRecorded(snapshots, first.before, sessionId);
  await checkRecorded(snapshots, last.after, sessionId);
  const files = await snapshots.patch(first.before, last.after);
  return { sessionId, workspace: first.workspace, from: first.before, to: last.after, steps: patches.length, files };
}
