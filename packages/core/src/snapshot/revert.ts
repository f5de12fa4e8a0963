import { realpath } from "node:fs/promises";
import type { z } from "zod";
import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { Store } from "../store/store.js";
import { openSnapshots, type WorkspaceSnapshots } from "./git-snapshots.js";
import { PATCH_ENTRY_TYPE, PatchDataSchema, REVERT_ENTRY_TYPE, type RevertData, RevertDataSchema } from "./snapshot-entry.js";

export interface RevertOptions {
  store: Store;
  sessionId: string;
  /** `$ARBOR_HOME`, where the snapshot histories are. */
  home: string;
  /** Take the session back to before this entry; default the last user message on the path. */
  to?: string;
}

export interface RevertResult {
  sessionId: string;
  /** The entry the session was taken back to before. */
  to: string;
  /** The leaf now: the revert's own record. */
  leaf: string;
  workspace?: string;
  /** Files the revert changed in the workspace. */
  files: number;
}

export interface UnrevertResult {
  sessionId: string;
  leaf: string | null;
  workspace?: string;
  files: number;
}

/**
 * Puts the workspace back as it was before `to` and moves the session's leaf to that entry's
 * parent, recording an `arbor.revert` entry there. The caller holds the session (`runtime.sessions.revert`
 * runs it in the session's slot, under its lease). Everything is checked before anything changes:
 * an entry that is not on the active path is an error and leaves workspace and session as they were. The workspace is snapshotted first, so
 * `unrevertSession` can restore it even if files were edited after the run.
 */
export async function revertSession(options: RevertOptions): Promise<RevertResult> {
  const { store, sessionId } = options;
  const path = await activePath(store, sessionId);
  const index = targetIndex(path, options.to, sessionId);
  const target = path[index]!;
  const patches = path.flatMap((entry, i) => {
    const data = customData(entry, PATCH_ENTRY_TYPE, PatchDataSchema);
    return data ? [{ i, data }] : [];
  });
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
  return { sessionId, to: target.id, leaf: record.id, ...(workspace ? { workspace } : {}), files };
}

/**
 * Undoes the last revert on the active path: the workspace as it was when the revert was made, and
 * the leaf back where it was. Fails with `nothing_to_unrevert` (changing nothing) when the path has
 * no revert, or the session has moved on past it with new messages.
 */
export async function unrevertSession(options: Omit<RevertOptions, "to">): Promise<UnrevertResult> {
  const { store, sessionId } = options;
  const path = await activePath(store, sessionId);
  let revert: RevertData | undefined;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    const data = customData(entry, REVERT_ENTRY_TYPE, RevertDataSchema);
    if (data) {
      revert = data;
      break;
    }
    if (entry.type === "message") break;
  }
  if (!revert) {
    throw new ArborError(
      "nothing_to_unrevert",
      `Session ${sessionId} has no revert to undo at its leaf; \`arbor revert\` first, and unrevert before sending new messages.`,
    );
  }
  let files = 0;
  if (revert.workspace && revert.saved) {
    await checkOwnWorkspace(store, sessionId, revert.workspace);
    const snapshots = await openSnapshots({ home: options.home, workspace: revert.workspace, sessionId });
    await checkRecorded(snapshots, revert.saved, sessionId);
    const now = await snapshots.track();
    files = (await snapshots.patch(now, revert.saved)).length;
    await snapshots.restore(now, revert.saved);
  }
  const meta = revert.fromLeaf ? await store.switchLeaf(sessionId, revert.fromLeaf) : await store.resetLeaf(sessionId);
  return { sessionId, leaf: meta.leafEntryId, ...(revert.workspace ? { workspace: revert.workspace } : {}), files };
}

/**
 * A revert acts only in the session's own workspace (the `cwd` its runs recorded): a patch entry
 * naming another directory (an imported session can carry any) changes nothing.
 */
export async function checkOwnWorkspace(store: Store, sessionId: string, workspace: string): Promise<void> {
  const meta = await store.getSession(sessionId);
  const own = meta?.cwd === undefined ? undefined : await realpath(meta.cwd).catch(() => undefined);
  const named = await realpath(workspace).catch(() => undefined);
  if (own === undefined || named !== own) {
    throw new ArborError(
      "revert_refused",
      `Session ${sessionId}'s file changes name ${workspace}, which is not the session's own workspace (${meta?.cwd ?? "none recorded"}); nothing was changed.`,
    );
  }
}

/** Restores only a tree the workspace's history recorded, so an entry cannot name one to empty the workspace. */
export async function checkRecorded(snapshots: WorkspaceSnapshots, tree: string, sessionId: string): Promise<void> {
  if (!(await snapshots.recorded(tree))) {
    throw new ArborError(
      "revert_refused",
      `Session ${sessionId} names a workspace state (${tree.slice(0, 12)}) that its snapshot history never recorded; nothing was changed.`,
    );
  }
}

async function activePath(store: Store, sessionId: string): Promise<Entry[]> {
  if (!(await store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  return store.getActivePath(sessionId);
}

function targetIndex(path: readonly Entry[], to: string | undefined, sessionId: string): number {
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

/** The entry's data when it is a custom entry of `type` whose data parses; a damaged one is skipped. */
export function customData<T>(entry: Entry, type: string, schema: z.ZodType<T>): T | undefined {
  if (entry.type !== "custom" || entry.customType !== type) return undefined;
  const parsed = schema.safeParse(entry.data);
  return parsed.success ? parsed.data : undefined;
}
