import { ArborError } from "../errors.js";
import { assertSessionId } from "../model/ids.js";
import { type ApprovalLookup, listScopedApprovals, revokeScopedApproval } from "../permissions/approval-scopes.js";
import { APPROVAL_ENTRY_TYPE, listApprovals } from "../permissions/approvals.js";
import type { KeyedLock } from "../store/keyed-lock.js";
import { withLease } from "../store/lease.js";
import type { Store } from "../store/store.js";
import type { Runtime } from "./types.js";

export interface ApprovalMethodDeps {
  store: Store;
  /** The runtime's per-session queue: a revocation waits for a running turn, never lands inside one. */
  queue: KeyedLock;
  holderName: string;
  /** The runtime's workspace, where a call without a session looks for project approvals. */
  cwd: string;
  home: string;
}

type ApprovalMethods = Pick<Runtime, "approvals" | "revokeApproval" | "listAllApprovals" | "revokeApprovalById">;

/** The runtime's approval methods: listing and revoking "always" answers of every scope. */
export function approvalMethods(deps: ApprovalMethodDeps): ApprovalMethods {
  const { store, queue, holderName, home } = deps;

  /** A session's approvals are looked up in its own workspace; without a session, in the runtime's. */
  async function approvalLookup(sessionId: string | undefined): Promise<ApprovalLookup> {
    if (sessionId === undefined) return { store, places: { workspace: deps.cwd, home } };
    assertSessionId(sessionId);
    const meta = await store.getSession(sessionId);
    if (!meta) throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
    return { store, sessionId, places: { workspace: meta.cwd ?? deps.cwd, home } };
  }

  return {
    approvals: async (sessionId) => listApprovals(await store.getActivePath(sessionId)),
    async revokeApproval(sessionId, approval) {
      return queue.run(sessionId, () =>
        withLease(store, sessionId, holderName, async () => {
          const current = listApprovals(await store.getActivePath(sessionId));
          const match = current.find(
            (a) => a.agent === approval.agent && a.permission === approval.permission && a.pattern === approval.pattern,
          );
          if (!match) return false;
          const { id: _, ...granted } = match;
          await store.appendEntry(sessionId, {
            type: "custom",
            customType: APPROVAL_ENTRY_TYPE,
            data: { ...granted, revoked: true },
          });
          return true;
        }),
      );
    },
    listAllApprovals: async (sessionId) => listScopedApprovals(await approvalLookup(sessionId)),
    async revokeApprovalById(id, sessionId) {
      const lookup = await approvalLookup(sessionId);
      if (sessionId === undefined) return revokeScopedApproval(lookup, id);
      return queue.run(sessionId, () => withLease(store, sessionId, holderName, () => revokeScopedApproval(lookup, id)));
    },
  };
}
