import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { LOCAL_ADMIN, type Principal } from "@arbor/core/store";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../errors.js";
import { tooLarge } from "./body.js";
import { setPrincipal } from "./principal.js";

/** `127.0.0.0/8`, `::1` (also IPv4-mapped) and `localhost`; brackets around IPv6 are allowed. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) {
    // One spelling per address: URL compresses zeros and writes an IPv4-mapped tail in hex
    // (`::ffff:127.0.0.1` becomes `::ffff:7f00:1`, as clients send it in Host).
    const normal = new URL(`http://[${h}]`).hostname.slice(1, -1);
    if (normal === "::1") return true;
    const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(normal);
    return mapped !== null && Number.parseInt(mapped[1] as string, 16) >> 8 === 127;
  }
  return false;
}

/** The host name of a `Host` header (`127.0.0.1:4096`, `[::1]:80`), or undefined when it does not parse. */
function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return undefined;
  }
}

/** Compares a bearer header with the token in constant time (both sides hashed to equal length first). */
export function bearerMatcher(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash("sha256").update(token).digest();
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
    const given = createHash("sha256")
      .update(match?.[1] ?? "")
      .digest();
    return timingSafeEqual(expected, given) && match !== null;
  };
}

export interface SecurityOptions {
  /** The server's own token: whoever presents it is an admin of every project. */
  token: string | undefined;
  /**
   * The principal a bearer token stands for — one kept in the store (`arbor tokens add`) or a JWT of a
   * configured identity provider — or why it is refused.
   */
  authenticate: (token: string) => Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
  /**
   * Every request needs a bearer token even without a server token of its own (an identity provider
   * issues them): no loopback-only rule and no trusted loopback caller.
   */
  bearerRequired?: boolean;
  /** Origins allowed cross-site (CORS is configured); `*` allows any. */
  corsOrigins: readonly string[];
  maxBodyBytes: number;
  /** Paths that need no token. */
  publicPaths: ReadonlySet<string>;
  /** Further paths that need no token (the inspector's static shell, which holds no data). */
  isPublicPath?: (path: string) => boolean;
}

/**
 * The checks every request passes before its route, so no route can forget one:
 * - without a token, only loopback `Host` names are served, so a DNS-rebinding page cannot reach
 *   a local server under its own name;
 * - a browser `Origin` must be this server's own or a configured CORS origin, so another site's
 *   page cannot drive the API (it would otherwise send "simple" requests that skip preflight);
 * - with a token, every path but the public ones needs `Authorization: Bearer <token>`;
 * - the request gets its principal: the server's token or a loopback request without one (when the
 *   server has no token) is the local admin; any other bearer token must be one of the store's,
 *   live, and acts with its scopes and projects (401 otherwise);
 * - a declared body larger than the limit is refused before it is read (chunked bodies are
 *   capped while reading, see body.ts).
 */
export function securityMiddleware(options: SecurityOptions): MiddlewareHandler {
  const matches = options.token === undefined ? undefined : bearerMatcher(options.token);
  const guarded = matches !== undefined || options.bearerRequired === true;
  const anyOrigin = options.corsOrigins.includes("*");
  return async (c, next) => {
    const host = c.req.header("host");
    if (!guarded) {
      const name = hostName(host);
      if (name === undefined || !isLoopbackHost(name)) {
        throw new ApiError(
          "forbidden_host",
          `Host ${JSON.stringify(host ?? "")} is not a loopback name; a server without a token answers only 127.0.0.1, ::1 and localhost. Start it with a token to serve other names.`,
        );
      }
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
      if (!anyOrigin && !options.corsOrigins.includes(origin)) {
        throw new ApiError("forbidden_origin", `Origin ${origin} is not allowed; configure it in the server's cors origins.`);
      }
    }
    // A browser cannot set headers on a WebSocket, so an upgrade may carry the token as access_token.
    const queryToken = c.req.header("upgrade")?.toLowerCase() === "websocket" ? c.req.query("access_token") : undefined;
    const authorization = c.req.header("authorization") ?? (queryToken === undefined ? undefined : `Bearer ${queryToken}`);
    const isPublic = options.publicPaths.has(c.req.path) || options.isPublicPath?.(c.req.path) === true;
    if (!isPublic) setPrincipal(c, await resolvePrincipal(options, matches, guarded, authorization, c));
    const declared = c.req.header("content-length");
    if (declared !== undefined && Number(declared) > options.maxBodyBytes) throw tooLarge(options.maxBodyBytes);
    await next();
  };
}

function unauthorized(c: Context, message: string): ApiError {
  c.header("WWW-Authenticate", 'Bearer realm="arbor"');
  return new ApiError("unauthorized", message);
}

/** Who a request acts as, or a 401 (see `securityMiddleware`). */
async function resolvePrincipal(
  options: SecurityOptions,
  matches: ((authorization: string | undefined) => boolean) | undefined,
  guarded: boolean,
  authorization: string | undefined,
  c: Context,
): Promise<Principal> {
  if (matches?.(authorization)) return LOCAL_ADMIN;
  const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  const check = bearer === undefined ? undefined : await options.authenticate(bearer);
  if (check?.ok) return check.principal;
  // A server without a token serves loopback names only (checked above) and trusts whoever reaches
  // it there, as before tokens: a store token narrows what a request may do, nothing else is needed.
  if (!guarded) return LOCAL_ADMIN;
  throw unauthorized(
    c,
    check === undefined
      ? "This server needs Authorization: Bearer <token> (the token it was started with, one from `arbor tokens add`, or one from the configured identity provider)."
      : check.reason,
  );
}
