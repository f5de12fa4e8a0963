import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import { openSnapshots } from "./git-snapshots.js";
import { activePathOf, checkOwnWorkspace, checkRecorded, customData } from "./revert-checks.js";
import type { RevertOptions, UnrevertResult } from "./revert-path.js";
import {
  REVERT_ENTRY_TYPE,
  type RevertData,
  RevertDataSchema,
  UNREVERT_ENTRY_TYPE,
  UnrevertDataSchema,
} from "./snapshot-entry.js";

/**
 * Undoes the latest revert on the active path that is not undone yet, also after later entries:
 *
 * - files: when the workspace is still exactly as the revert left it, it goes back to how it was
 *   when the revert was made; otherwise only the revert's own change is taken back, hunk by hunk,
 *   so what was done since stays (a hunk that no longer fits is `revert_conflict`, nothing written);
 * - leaf: a session revert that is still the leaf moves the leaf back where it was (the reverted
 *   turns return); otherwise (later entries, or a file or step revert) the conversation stays where it
 *   is and an `arbor.unrevert` entry records the undo.
 *
 * Fails with `nothing_to_unrevert` (changing nothing) when no revert on the path is left to undo.
 */
export async function unrevertSession(options: Omit<RevertOptions, "to" | "file" | "step">): Promise<UnrevertResult> {
  const { store, sessionId } = options;
  const path = await activePathOf(store, sessionId);
  const found = latestRevert(path);
  if (!found) {
    throw new ArborError(
      "nothing_to_unrevert",
      `Session ${sessionId} has no revert to undo on its active path; \`arbor revert\` first.`,
    );
  }
  const { entry, data } = found;
  let files = 0;
  if (data.workspace && data.saved && data.restored) {
    await checkOwnWorkspace(store, sessionId, data.workspace);
    const snapshots = await openSnapshots({ home: options.home, workspace: data.workspace, sessionId });
    await checkRecorded(snapshots, data.saved, sessionId);
    await checkRecorded(snapshots, data.restored, sessionId);
    const now = await snapshots.track();
    if (now === data.restored) {
      files = (await snapshots.patch(now, data.saved)).length;
      await snapshots.restore(now, data.saved);
    } else {
      files = (await snapshots.applyDiff(data.restored, data.saved)).length;
    }
  }
  const workspace = data.workspace ? { workspace: data.workspace } : {};
  const atLeaf = path.at(-1)?.id === entry.id;
  if ((data.scope ?? "session") === "session" && atLeaf) {
    const meta = data.fromLeaf ? await store.switchLeaf(sessionId, data.fromLeaf) : await store.resetLeaf(sessionId);
    return { sessionId, leaf: meta.leafEntryId, ...workspace, files };
  }
  const record = await store.appendEntry(sessionId, {
    type: "custom",
    customType: UNREVERT_ENTRY_TYPE,
    data: { revertId: entry.id },
  });
  return { sessionId, leaf: record.id, ...workspace, files };
}

/** The latest revert on the path that no later `arbor.unrevert` undid. */
function latestRevert(path: readonly Entry[]): { entry: Entry; data: RevertData } | undefined {
  const undone = new Set<string>();
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    const unrevert = customData(entry, UNREVERT_ENTRY_TYPE, UnrevertDataSchema);
    if (unrevert) {
      undone.add(unrevert.revertId);
      continue;
    }
    const data = customData(entry, REVERT_ENTRY_TYPE, RevertDataSchema);
    if (data && !undone.has(entry.id)) return { entry, data };
  }
  return undefined;
}
