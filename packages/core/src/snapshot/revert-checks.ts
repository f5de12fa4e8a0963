import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { z } from "zod";
import { ArborError } from "../errors.js";
import type { Entry } from "../model/entry.js";
import type { Store } from "../store/store.js";
import type { WorkspaceSnapshots } from "./git-snapshots.js";

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

/**
 * `file` (relative to the workspace, or absolute inside it) as the workspace-relative path git
 * names it by; a path that leaves the workspace is refused before anything is read.
 */
export function workspacePath(workspace: string, file: string): string {
  const rel = relative(workspace, resolve(workspace, file));
  if (file.trim() === "" || rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new ArborError(
      "revert_refused",
      `${file} is not a file inside the session's workspace (${workspace}); give a path relative to it. Nothing was changed.`,
    );
  }
  return rel.split(sep).join("/");
}

export async function activePathOf(store: Store, sessionId: string): Promise<Entry[]> {
  if (!(await store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  return store.getActivePath(sessionId);
}

/** The entry's data when it is a custom entry of `type` whose data parses; a damaged one is skipped. */
export function customData<T>(entry: Entry, type: string, schema: z.ZodType<T>): T | undefined {
  if (entry.type !== "custom" || entry.customType !== type) return undefined;
  const parsed = schema.safeParse(entry.data);
  return parsed.success ? parsed.data : undefined;
}
