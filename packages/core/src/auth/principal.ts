import { isAbsolute, relative, resolve } from "node:path";
import { z } from "zod";
import { ArborError } from "../errors.js";

/**
 * What a caller may do. Each scope includes the ones before it: `read` lists and reads sessions and
 * watches them; `run` also chats, steers, forks and answers the asks of sessions it created;
 * `admin` also deletes, reverts, answers any ask, grants and withdraws approvals and clears caches.
 */
export const ScopeSchema = z.enum(["read", "run", "admin"]);
export type Scope = z.infer<typeof ScopeSchema>;
export const SCOPES: readonly Scope[] = ScopeSchema.options;

/**
 * Who a request acts as: the id recorded on what it creates (`createdBy` on sessions, `sentBy` on
 * user messages), its scopes, and, when limited, the projects (absolute workspace folders) whose
 * sessions it may see. A session outside them does not exist for it.
 */
export const PrincipalSchema = z.object({
  id: z.string().min(1).max(200),
  scopes: z.array(ScopeSchema).min(1),
  projects: z.array(z.string().min(1)).optional(),
});
export type Principal = z.infer<typeof PrincipalSchema>;

/** The caller of a server with no tokens on loopback, or of a server started with its one `--token`: everything. */
export const LOCAL_ADMIN: Principal = Object.freeze({ id: "local", scopes: ["admin"] }) as Principal;

const RANK: Record<Scope, number> = { read: 0, run: 1, admin: 2 };

/** Whether the principal holds `scope` (directly, or by a wider one). */
export function allows(principal: Principal, scope: Scope): boolean {
  return principal.scopes.some((held) => RANK[held] >= RANK[scope]);
}

/** Throws `scope_required` naming the scope when the principal lacks it. */
export function requireScope(principal: Principal, scope: Scope, what: string): void {
  if (!allows(principal, scope)) {
    throw new ArborError(
      "scope_required",
      `${what} needs the "${scope}" scope; the token used holds ${principal.scopes.map((s) => `"${s}"`).join(", ")}.`,
      { scope },
    );
  }
}

/** Whether `cwd` is one of the principal's projects or inside one; every workspace when it is not limited. */
export function seesWorkspace(principal: Principal, cwd: string | undefined): boolean {
  if (principal.projects === undefined) return true;
  if (cwd === undefined) return false;
  const target = resolve(cwd);
  return principal.projects.some((project) => {
    const rel = relative(resolve(project), target);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

/** The error a session outside the principal's projects gets: the same as a missing one, so nothing leaks. */
export function hiddenSession(sessionId: string): ArborError {
  return new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
}
