import type { Principal } from "@arbor/core/store";
import type { Context } from "hono";

/** Where the security middleware leaves the principal a request acts as, for routes and protocols to pass on. */
const KEY = "arbor.principal";

export function setPrincipal(c: Context, principal: Principal): void {
  c.set(KEY as never, principal as never);
}

/**
 * The principal the request acts as. Every request that reaches a route has one (the middleware
 * refuses the others); undefined only for a handler called without the middleware (a test's bare app).
 */
export function principalOf(c: Context): Principal | undefined {
  return c.get(KEY as never) as Principal | undefined;
}

/** `{ principal }` for a runtime call's options, empty without one. */
export function asPrincipal(c: Context): { principal?: Principal } {
  const principal = principalOf(c);
  return principal === undefined ? {} : { principal };
}
