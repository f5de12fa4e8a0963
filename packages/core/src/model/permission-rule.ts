import { z } from "zod";

/**
 * A permission rule, stored in a trace's context as well as configured, so its shape lives with the
 * rest of the stored model; what rules decide is `permissions/`.
 */
export const PermissionActionSchema = z.enum(["allow", "ask", "deny"]);
export type PermissionAction = z.infer<typeof PermissionActionSchema>;

export const PermissionRuleSchema = z.strictObject({
  permission: z.string().min(1),
  pattern: z.string().min(1),
  action: PermissionActionSchema,
  /**
   * Absent for an agent's own rules; n for the rules of the caller n levels up a chain of
   * sub-agents. Each level is decided on its own and the strictest answer wins (see `capToCaller`).
   */
  callerLevel: z.number().int().positive().optional(),
});
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
