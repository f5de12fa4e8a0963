import type { Runtime } from "@arbor/core";
import type { Scope } from "@arbor/core/store";
import type { Context } from "hono";
import { principalOf } from "./principal.js";
import type { RouteSpec } from "./route.js";

/**
 * Paths whose `:id` is a session (a trace is a session; a chat is named by its session): the door
 * checks the principal sees it before the route runs, so a session of another project is a 404
 * on every one of them alike.
 */
const SESSION_PATH = /^\/api\/(?:sessions|traces|ui\/chat)\/:id(?:\/|$)/;

/** The scope a route needs: its own, or `admin` for one that forgot to say (closed by default; the scope suite fails on it). */
export function routeScope(spec: RouteSpec): Scope {
  return spec.scope ?? "admin";
}

/**
 * The door for a described route: the principal must hold the route's scope (403 `scope_required`)
 * and see the session the path names (404 `session_not_found`). Sessions named in a body or a query
 * are checked by the runtime call the route makes with the same principal.
 */
export async function authorizeRoute(runtime: Runtime, spec: RouteSpec, c: Context): Promise<void> {
  if (spec.public) return;
  const principal = principalOf(c);
  const what = `${spec.method} ${spec.path}`;
  runtime.access.require(principal, routeScope(spec), what);
  // A principal of every project sees every session: the route's own lookup says whether it exists.
  if (principal?.projects === undefined) return;
  const sessionId = SESSION_PATH.test(spec.path) ? c.req.param("id") : undefined;
  if (sessionId !== undefined) await runtime.access.session(principal, sessionId, routeScope(spec), what);
  // Listings and approvals narrowed to one session name it in the query.
  const named = c.req.query("session_id");
  if (named !== undefined && named !== "") await runtime.access.session(principal, named, routeScope(spec), what);
}
