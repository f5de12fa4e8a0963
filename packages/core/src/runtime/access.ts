import { isAbsolute, resolve } from "node:path";
import { jwtVerifier, looksLikeJwt, type TokenCheck } from "../auth/jwt.js";
import type { JwtAuth } from "../auth/jwt-config.js";
import { allows, hiddenSession, type Principal, requireScope, type Scope, seesWorkspace } from "../auth/principal.js";
import { hashToken, newToken, TokenIdSchema, type TokenRecord, tokenNotFound, tokenPrincipal } from "../auth/tokens.js";
import { ArborError } from "../errors.js";
import { assertSessionId } from "../model/ids.js";
import type { SessionMeta } from "../model/session.js";
import { encodeCursor, pageLimit } from "../store/session-meta.js";
import type { ListSessionsOptions, SessionPage, Store } from "../store/store.js";

/**
 * `runtime.access`: who may do what, decided once for every front door. Each call takes the
 * principal the request acts as; undefined means a caller inside the process (a library user, the
 * CLI), which may do anything. A session outside the principal's projects is `session_not_found`,
 * exactly as a missing one, so a token never learns what other projects hold.
 */
export interface RuntimeAccess {
  /** The principal a bearer token stands for; undefined for an unknown, revoked or refused token. */
  principalForToken(token: string): Promise<Principal | undefined>;
  /**
   * The principal a bearer token stands for, or why it is refused: a store token (`arbor tokens add`)
   * unknown or revoked, or a JWT that fails `auth.jwt` (bad signature, issuer, audience, expiry, no scope).
   */
  authenticate(token: string): Promise<TokenCheck>;
  /** Whether JWTs of an identity provider are accepted (`auth.jwt`): a server may then need no token of its own. */
  readonly acceptsJwt: boolean;
  /** Throws `scope_required` naming the scope when the principal lacks it. */
  require(principal: Principal | undefined, scope: Scope, what: string): void;
  /** Whether the principal sees a session in this workspace. */
  sees(principal: Principal | undefined, meta: Pick<SessionMeta, "cwd">): boolean;
  /**
   * The session, checked: `scope_required` when the principal lacks `scope`, `session_not_found`
   * when the session does not exist or lies outside its projects.
   */
  session(principal: Principal | undefined, sessionId: string, scope: Scope, what: string): Promise<SessionMeta>;
  /**
   * May the principal answer the asks (permissions, plans) of this session: `admin`, or `run` on a
   * session it created.
   */
  answer(principal: Principal | undefined, sessionId: string, what: string): Promise<void>;
  /**
   * The workspace a new session of the principal gets: `cwd` when it lies in its projects (else
   * `scope_required`), or, unnamed, the runtime's when visible, else its first project.
   */
  workspace(principal: Principal | undefined, cwd: string | undefined, what: string): string | undefined;
  /** A page of the sessions the principal sees (`read`), newest first, as `store.listSessions` pages them. */
  listSessions(principal: Principal | undefined, opts?: ListSessionsOptions): Promise<SessionPage>;
  /**
   * A new API token with these scopes (and projects, made absolute): the token itself is returned
   * once, here; the store keeps its SHA-256. `invalid_input` for no scope or a relative project.
   */
  addToken(init: { scopes: Scope[]; projects?: string[]; name?: string }): Promise<{ token: string; record: TokenRecord }>;
  /** Every token's record (never a token), revoked ones included, oldest first. */
  listTokens(): Promise<TokenRecord[]>;
  /** Revokes a token at once for every server over the store; `token_not_found`. */
  revokeToken(id: string): Promise<TokenRecord>;
  /** Of items naming a session, those whose session the principal sees (one lookup per session). */
  visible<T>(principal: Principal | undefined, items: readonly T[], sessionOf: (item: T) => string): Promise<T[]>;
}

export function runtimeAccess(store: Store, runtimeCwd: string, jwt?: JwtAuth): RuntimeAccess {
  const verifyJwt = jwt === undefined ? undefined : jwtVerifier(jwt);
  const access: RuntimeAccess = {
    acceptsJwt: verifyJwt !== undefined,
    async principalForToken(token) {
      const check = await access.authenticate(token);
      return check.ok ? check.principal : undefined;
    },
    async authenticate(token) {
      if (verifyJwt !== undefined && looksLikeJwt(token)) return verifyJwt(token);
      const record = token.length === 0 ? undefined : await store.tokens.findByHash(hashToken(token));
      if (record && record.revokedAt === undefined) return { ok: true, principal: tokenPrincipal(record) };
      return {
        ok: false,
        reason: "The bearer token is not one this server knows, or it was revoked; `arbor tokens list` shows the live ones.",
      };
    },
    require(principal, scope, what) {
      if (principal) requireScope(principal, scope, what);
    },
    sees: (principal, meta) => principal === undefined || seesWorkspace(principal, meta.cwd),
    async session(principal, sessionId, scope, what) {
      access.require(principal, scope, what);
      assertSessionId(sessionId);
      const meta = await store.getSession(sessionId);
      if (!meta || !access.sees(principal, meta)) throw hiddenSession(sessionId);
      return meta;
    },
    async answer(principal, sessionId, what) {
      // An admin of every project answers anything; the answer's own lookup says whether it exists.
      if (!principal || (allows(principal, "admin") && principal.projects === undefined)) return;
      const meta = await access.session(principal, sessionId, "run", what);
      if (!allows(principal, "admin") && meta.createdBy !== principal.id) {
        throw new ArborError(
          "scope_required",
          `${what} in session ${sessionId}, which another principal created, needs the "admin" scope; "run" answers only the asks of sessions it created.`,
          { scope: "admin" },
        );
      }
    },
    workspace(principal, cwd, what) {
      if (principal?.projects === undefined) return cwd;
      // Named: a session of no workspace would be one its own creator could not see.
      const wanted = cwd ?? runtimeCwd;
      if (seesWorkspace(principal, wanted)) return wanted;
      if (cwd === undefined && principal.projects?.[0] !== undefined) return principal.projects[0];
      throw new ArborError(
        "scope_required",
        `${what} in ${wanted} is outside the token's projects (${(principal.projects ?? []).join(", ")}).`,
        { projects: principal.projects },
      );
    },
    async listSessions(principal, opts = {}) {
      access.require(principal, "read", "Listing sessions");
      if (principal?.projects === undefined) return store.listSessions(opts);
      // Pages of the store, filtered, until this page is full: a page never names a hidden session.
      const limit = pageLimit(opts.limit);
      const out: SessionMeta[] = [];
      let cursor = opts.cursor;
      for (;;) {
        const page = await store.listSessions({ ...opts, limit, ...(cursor === undefined ? {} : { cursor }) });
        for (const meta of page.sessions) {
          if (!seesWorkspace(principal, meta.cwd)) continue;
          out.push(meta);
          if (out.length === limit) return { sessions: out, nextCursor: encodeCursor(meta) };
        }
        if (page.nextCursor === undefined) return { sessions: out };
        cursor = page.nextCursor;
      }
    },
    async addToken(init) {
      if (init.scopes.length === 0)
        throw new ArborError("invalid_input", "A token needs at least one scope: read, run or admin.");
      const projects = init.projects?.map((p) => {
        if (!isAbsolute(p)) throw new ArborError("invalid_input", `The project ${p} must be an absolute folder.`);
        return resolve(p);
      });
      const made = newToken({
        scopes: init.scopes,
        ...(projects === undefined ? {} : { projects }),
        ...(init.name === undefined ? {} : { name: init.name }),
      });
      await store.tokens.add(made.record);
      return made;
    },
    listTokens: () => store.tokens.list(),
    revokeToken(id) {
      if (!TokenIdSchema.safeParse(id).success) return Promise.reject(tokenNotFound(id));
      return store.tokens.revoke(id, new Date().toISOString());
    },
    async visible(principal, items, sessionOf) {
      if (principal?.projects === undefined) return [...items];
      const seen = new Map<string, boolean>();
      const out: (typeof items)[number][] = [];
      for (const item of items) {
        const id = sessionOf(item);
        if (!seen.has(id)) {
          const meta = await store.getSession(id).catch(() => undefined);
          seen.set(id, meta !== undefined && seesWorkspace(principal, meta.cwd));
        }
        if (seen.get(id)) out.push(item);
      }
      return out;
    },
  };
  return access;
}
