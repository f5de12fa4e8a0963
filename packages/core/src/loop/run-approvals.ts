import type { Entry } from "../model/entry.js";
import { addToApprovalFile, readApprovalFile } from "../permissions/approval-file.js";
import { type Approval, type ApprovalRule, approvalEntry, approvalRulesFor, listApprovals } from "../permissions/approvals.js";
import { appendEntry } from "./journal.js";
import type { RunContext } from "./run-context.js";

/** The "always" answers in force for `agent` in a run: the session's (on its path), the workspace's, the user's. */
export function runApprovals(path: readonly Entry[], agent: string, workspace: string, home: string): ApprovalRule[] {
  const places = { workspace, home };
  return approvalRulesFor(
    [...listApprovals(path), ...readApprovalFile("project", places), ...readApprovalFile("global", places)],
    agent,
  );
}

/**
 * Records an "always" answer where its scope keeps it: a session's on the run's path (one write
 * door with the rest of the run), a project's or the user's in their approvals file.
 */
export async function recordApproval(
  ctx: () => RunContext,
  places: { workspace: string; home: string },
  approval: Omit<Approval, "revoked">,
  now: Date,
): Promise<void> {
  switch (approval.scope) {
    case "session":
      await appendEntry(ctx(), approvalEntry(approval));
      return;
    case "project":
    case "global": {
      const { scope, ...rest } = approval;
      addToApprovalFile(scope, places, rest, now);
      return;
    }
  }
}
