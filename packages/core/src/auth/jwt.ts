import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import type { JwtAuth } from "./jwt-config.js";
import { type Principal, PrincipalSchema, type Scope, ScopeSchema } from "./principal.js";

/** What checking a bearer token found: the principal it stands for, or why it was refused (said in the 401). */
export type TokenCheck = { ok: true; principal: Principal } | { ok: false; reason: string };

/** Whether a bearer token has a JWT's shape (three base64url parts); the store's own tokens never do. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

const DiscoverySchema = z.looseObject({ issuer: z.string(), jwks_uri: z.url() });

/**
 * Checks JWTs against `auth.jwt`: the signature by one of the provider's keys (fetched from its JWKS
 * and cached by `jose`, refreshed when a token names a key it has not seen, so key rotation needs no
 * restart), `iss`, `aud`, `exp` and `nbf`, then maps the claims to a principal. `jose` is loaded on
 * the first JWT, so a server that never sees one pays nothing for it.
 */
export function jwtVerifier(settings: JwtAuth): (token: string) => Promise<TokenCheck> {
  // One key set per verifier; a failed discovery is forgotten so the next request tries again.
  let keys: Promise<Parameters<typeof import("jose").jwtVerify>[1]> | undefined;
  const keySet = () => {
    keys ??= (async () => {
      const { createRemoteJWKSet } = await import("jose");
      return createRemoteJWKSet(new URL(settings.jwksUrl ?? (await discoverJwks(settings.issuer))));
    })().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return keys;
  };
  return async (token) => {
    const { jwtVerify, errors } = await import("jose");
    let claims: Record<string, unknown>;
    try {
      const verified = await jwtVerify(token, (await keySet()) as never, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: settings.algorithms,
        clockTolerance: settings.clockToleranceSeconds,
      });
      claims = verified.payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired) return refuse("it has expired");
      if (error instanceof errors.JWTClaimValidationFailed)
        return refuse(`its "${error.claim}" claim is not accepted (${error.reason})`);
      if (error instanceof errors.JOSEError) return refuse(`its signature or form is not accepted (${error.code})`);
      return refuse(`the identity provider's keys could not be read (${(error as Error).message})`);
    }
    return principalOf(claims, settings);
  };
}

function refuse(why: string): TokenCheck {
  return { ok: false, reason: `The bearer token is a JWT this server does not accept: ${why}.` };
}

/** The JWKS address of an OIDC provider, from its discovery document (whose issuer must be the configured one). */
async function discoverJwks(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const document = DiscoverySchema.safeParse(await response.json());
  if (!document.success) throw new Error(`${url} has no jwks_uri`);
  // A document naming another issuer would let its keys vouch for this one's tokens (OIDC Discovery 4.3).
  if (document.data.issuer.replace(/\/+$/, "") !== issuer.replace(/\/+$/, "")) {
    throw new Error(`${url} names the issuer ${document.data.issuer}, not ${issuer}`);
  }
  return document.data.jwks_uri;
}

/** The principal a verified token's claims stand for: `oidc:<sub>`, its Arbor scopes, its projects. */
function principalOf(claims: Record<string, unknown>, settings: JwtAuth): TokenCheck {
  if (typeof claims.sub !== "string" || claims.sub.length === 0) return refuse('it has no "sub" claim');
  const raw = claims[settings.scopesClaim];
  const values = typeof raw === "string" ? raw.split(/\s+/) : Array.isArray(raw) ? raw.filter((v) => typeof v === "string") : [];
  const scopes = new Set<Scope>();
  for (const value of values) {
    if (!value.startsWith(settings.scopePrefix)) continue;
    const scope = ScopeSchema.safeParse(value.slice(settings.scopePrefix.length));
    if (scope.success) scopes.add(scope.data);
  }
  if (scopes.size === 0) {
    return refuse(
      `its "${settings.scopesClaim}" claim grants no Arbor scope (one of ${ScopeSchema.options.map((s) => `${settings.scopePrefix}${s}`).join(", ")})`,
    );
  }
  let projects: string[] | undefined;
  if (settings.projectsClaim !== undefined) {
    const listed = claims[settings.projectsClaim];
    const folders = typeof listed === "string" ? [listed] : Array.isArray(listed) ? listed : undefined;
    // A limited deployment fails closed: a token without the claim sees no project rather than all.
    if (folders === undefined) return refuse(`it has no "${settings.projectsClaim}" claim naming its projects`);
    if (!folders.every((f): f is string => typeof f === "string" && isAbsolute(f))) {
      return refuse(`its "${settings.projectsClaim}" claim must list absolute folders`);
    }
    projects = folders.map((f) => resolve(f));
  }
  const principal = PrincipalSchema.safeParse({
    id: `oidc:${claims.sub}`.slice(0, 200),
    scopes: [...scopes],
    ...(projects === undefined ? {} : { projects }),
  });
  return principal.success ? { ok: true, principal: principal.data } : refuse("its claims do not form a principal");
}
