import { z } from "zod";
import type { Entry } from "../model/entry.js";
import type { PermissionRule } from "../tools/permission.js";

/** The custom entry type an "always" answer is recorded under: in the session, so it is scoped to it, survives a restart, and can be listed and revoked. */
export const APPROVAL_ENTRY_TYPE = "arbor.permission_approval";

export const ApprovalSchema = z.object({
  /** Only this agent's asks are answered by it: an approval never leaks to another agent. */
  agent: z.string().min(1),
  permission: z.string().min(1),
  pattern: z.string().min(1),
  scope: z.literal("session"),
  /** A later entry with `revoked: true` for the same agent, permission and pattern withdraws it. */
  revoked: z.boolean().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** The approvals in force for `agent` on a path, as allow rules in the order they were given. Pure. */
export function approvalsOnPath(path: readonly Entry[], agent: string): PermissionRule[] {
  const active = new Map<string, PermissionRule>();
  for (const entry of path) {
    if (entry.type !== "custom" || entry.customType !== APPROVAL_ENTRY_TYPE) continue;
    const parsed = ApprovalSchema.safeParse(entry.data);
    if (!parsed.success || parsed.data.agent !== agent) continue;
    const key = `${parsed.data.permission}\u0000${parsed.data.pattern}`;
    active.delete(key);
    if (!parsed.data.revoked)
      active.set(key, { permission: parsed.data.permission, pattern: parsed.data.pattern, action: "allow" });
  }
  return [...active.values()];
}

/** Every approval in force on a path, for any agent, as recorded (for listing and revoking). Pure. */
export function listApprovals(path: readonly Entry[]): Approval[] {
  const active = new Map<string, Approval>();
  for (const entry of path) {
    if (entry.type !== "custom" || entry.customType !== APPROVAL_ENTRY_TYPE) continue;
    const parsed = ApprovalSchema.safeParse(entry.data);
    if (!parsed.success) continue;
    const { agent, permission, pattern, scope } = parsed.data;
    const key = `${agent}\u0000${permission}\u0000${pattern}`;
    active.delete(key);
    if (!parsed.data.revoked) active.set(key, { agent, permission, pattern, scope });
  }
  return [...active.values()];
}
