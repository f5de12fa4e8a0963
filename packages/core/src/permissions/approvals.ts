import { z } from "zod";
import type { Entry } from "../model/entry.js";
import { wildcardMatch } from "./wildcard.js";

/** The custom entry type an "always" answer is recorded under: in the session, so it is scoped to it, survives a restart, and can be listed and revoked. */
export const APPROVAL_ENTRY_TYPE = "arbor.permission_approval";

/**
 * Where an "always" answer holds: this session only (recorded on its path, so branches keep their
 * own), every session in the workspace (`<workspace>/.arbor/approvals.json`), or every workspace
 * (`$ARBOR_HOME/approvals.json`).
 */
export const ApprovalScopeSchema = z.enum(["session", "project", "global"]);
export type ApprovalScope = z.infer<typeof ApprovalScopeSchema>;

export const ApprovalSchema = z.object({
  /** Only this agent's asks are answered by it: an approval never leaks to another agent. */
  agent: z.string().min(1),
  permission: z.string().min(1),
  pattern: z.string().min(1),
  scope: ApprovalScopeSchema,
  /**
   * Absent or false: the pattern approves exactly that text (the command or URL the user saw), its
   * `*` and `?` being plain characters. True only where the ask itself showed a wildcard (a folder
   * outside the workspace, `dir/*`).
   */
  wildcard: z.boolean().optional(),
  /** A later entry with `revoked: true` for the same agent, permission and pattern withdraws it. */
  revoked: z.boolean().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/**
 * The entry that grants (or, `revoked`, withdraws) a session's approval: one shape for the run's
 * "always" answer and the runtime's grant and revoke. Pure; the caller appends it holding the session.
 */
export function approvalEntry(approval: Omit<Approval, "scope">): {
  type: "custom";
  customType: typeof APPROVAL_ENTRY_TYPE;
  data: Approval;
} {
  return { type: "custom", customType: APPROVAL_ENTRY_TYPE, data: { ...approval, scope: "session" } };
}

/** An approval as listed: with the id that revokes it (a session's: the entry that granted it). */
export type ListedApproval = Omit<Approval, "revoked"> & { id: string };

/** What an approval settles: an ask of `permission` for `pattern` (exactly, unless `wildcard`). */
export interface ApprovalRule {
  permission: string;
  pattern: string;
  wildcard?: boolean;
}

/** Whether one of `approvals` settles an ask of `permission` for `pattern`. Pure. */
export function isApproved(approvals: readonly ApprovalRule[], permission: string, pattern: string): boolean {
  return approvals.some(
    (a) => a.permission === permission && (a.wildcard ? wildcardMatch(a.pattern, pattern) : a.pattern === pattern),
  );
}

const keyOf = (a: Pick<Approval, "agent" | "permission" | "pattern">) => `${a.agent}\u0000${a.permission}\u0000${a.pattern}`;

/** Every session approval in force on a path, for any agent, in the order given. Pure. */
export function listApprovals(path: readonly Entry[]): ListedApproval[] {
  const active = new Map<string, ListedApproval>();
  for (const entry of path) {
    if (entry.type !== "custom" || entry.customType !== APPROVAL_ENTRY_TYPE) continue;
    const parsed = ApprovalSchema.safeParse(entry.data);
    if (!parsed.success) continue;
    const { revoked, ...approval } = parsed.data;
    const key = keyOf(approval);
    active.delete(key);
    if (!revoked) active.set(key, { ...approval, scope: "session", id: entry.id });
  }
  return [...active.values()];
}

/** The approvals in force for `agent`, as what they settle. Pure. */
export function approvalRulesFor(approvals: readonly Omit<Approval, "revoked">[], agent: string): ApprovalRule[] {
  return approvals
    .filter((a) => a.agent === agent)
    .map((a) => ({ permission: a.permission, pattern: a.pattern, ...(a.wildcard ? { wildcard: true } : {}) }));
}

/** The session approvals in force for `agent` on a path. Pure. */
export function approvalsOnPath(path: readonly Entry[], agent: string): ApprovalRule[] {
  return approvalRulesFor(listApprovals(path), agent);
}
