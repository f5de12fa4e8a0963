import { ArborError } from "../errors.js";
import type { Store } from "../store/store.js";
import { type ApprovalPlaces, readApprovalFile, removeFromApprovalFile } from "./approval-file.js";
import { approvalEntry, type ListedApproval, listApprovals } from "./approvals.js";

/** Which approvals a listing or a revocation looks at: a session's (when named), its workspace's and the user's. */
export interface ApprovalLookup {
  store: Store;
  /** Without it only the project and global scopes are looked at. */
  sessionId?: string;
  places: ApprovalPlaces;
}

/** Every approval in force for the lookup: the session's first, then the project's, then the global ones. */
export async function listScopedApprovals(lookup: ApprovalLookup): Promise<ListedApproval[]> {
  const session = lookup.sessionId === undefined ? [] : await sessionApprovals(lookup.store, lookup.sessionId);
  return [...session, ...readApprovalFile("project", lookup.places), ...readApprovalFile("global", lookup.places)];
}

async function sessionApprovals(store: Store, sessionId: string): Promise<ListedApproval[]> {
  if (!(await store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  return listApprovals(await store.getActivePath(sessionId));
}

/**
 * Withdraws the approval `id` (as listed) and returns it. A session's is withdrawn by an entry on
 * its path, so the grant stays in its history; a file's is removed from the file. Fails with
 * `approval_not_found`, changing nothing, when no approval in the lookup's scopes has that id.
 */
export async function revokeScopedApproval(lookup: ApprovalLookup, id: string): Promise<ListedApproval> {
  const found = (await listScopedApprovals(lookup)).find((a) => a.id === id);
  if (!found) {
    const where = lookup.sessionId === undefined ? "" : `session ${lookup.sessionId}, `;
    throw new ArborError(
      "approval_not_found",
      `No approval ${id} is in force in ${where}the workspace ${lookup.places.workspace} or the global approvals; list them with arbor approvals list.`,
    );
  }
  switch (found.scope) {
    case "session": {
      const { id: _, ...approval } = found;
      await lookup.store.appendEntry(lookup.sessionId!, approvalEntry({ ...approval, revoked: true }));
      break;
    }
    case "project":
    case "global":
      removeFromApprovalFile(found.scope, lookup.places, id);
      break;
  }
  return found;
}
