import { mkdirSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { resolveConfig } from "@arbor/core";
import { text } from "@arbor/testkit";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { errorOf, onCleanup, startServer, type TestServer } from "./helpers/server.js";

/**
 * An identity provider on loopback, as an OIDC provider publishes itself: a discovery document naming
 * its issuer and key set, and the key set. It signs tokens with its own key; `counts` says how often
 * each document was fetched (keys are cached, not fetched per request).
 */
async function identityProvider() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const counts = { discovery: 0, jwks: 0 };
  const http = createHttpServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url?.endsWith("/.well-known/openid-configuration")) {
      counts.discovery++;
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks.json` }));
    } else if (req.url === "/jwks.json") {
      counts.jwks++;
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const sign = (
    claims: Record<string, unknown>,
    opts: { key?: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]; exp?: string; aud?: string } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience(opts.aud ?? "arbor")
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? "5m")
      .sign(opts.key ?? privateKey);
  return { issuer, sign, counts };
}

async function serverTrusting(issuer: string, extra: Record<string, unknown> = {}): Promise<TestServer> {
  const config = resolveConfig([
    { source: "test", value: { auth: { jwt: { issuer, audience: "arbor", projectsClaim: "arbor_projects", ...extra } } } },
  ]);
  return startServer({ script: [[text("hi")], [text("title")]], runtime: { config } });
}

describe("JWTs of an identity provider (auth.jwt)", () => {
  it("maps a verified token's sub, scopes and projects to a principal, through OIDC discovery", async () => {
    const idp = await identityProvider();
    const server = await serverTrusting(idp.issuer);
    const otherProject = join(server.cwd, "..", "other");
    mkdirSync(otherProject);
    const hidden = await server.store.createSession({ cwd: otherProject });

    const reader = await idp.sign({ sub: "ada", scope: "openid arbor:read", arbor_projects: [server.cwd] });
    const listed = await server.api("/api/sessions", { token: reader });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { sessions: unknown[] }).sessions).toEqual([]);
    // Outside its projects a session does not exist for it.
    expect((await errorOf(await server.api(`/api/sessions/${hidden.id}`, { token: reader }))).status).toBe(404);
    // `read` does not chat.
    const refused = await errorOf(await server.api("/api/chat", { token: reader, json: { message: "hello" } }));
    expect(refused).toMatchObject({ status: 403, code: "scope_required" });

    const runner = await idp.sign({ sub: "grace", scope: "arbor:run", arbor_projects: [server.cwd] });
    const chat = await server.api("/api/chat", { token: runner, json: { message: "hello", stream: false } });
    expect(chat.status).toBe(200);
    const sessions = await server.store.listSessions({});
    const created = sessions.sessions.find((s) => s.id !== hidden.id);
    expect(created?.createdBy).toBe("oidc:grace");
    // One discovery and one key-set fetch served every request.
    expect(idp.counts).toEqual({ discovery: 1, jwks: 1 });
  });

  it("refuses, with the reason, tokens that are expired, for another audience, signed by another key or grant no Arbor scope", async () => {
    const idp = await identityProvider();
    const server = await serverTrusting(idp.issuer);
    const stranger = await generateKeyPair("ES256");
    const cases: Array<[string, string, RegExp]> = [
      ["expired", await idp.sign({ sub: "a", scope: "arbor:admin", arbor_projects: [server.cwd] }, { exp: "-2m" }), /expired/],
      ["audience", await idp.sign({ sub: "a", scope: "arbor:admin", arbor_projects: [server.cwd] }, { aud: "other" }), /"aud"/],
      ["key", await idp.sign({ sub: "a", scope: "arbor:admin" }, { key: stranger.privateKey }), /signature/],
      [
        "scope",
        await idp.sign({ sub: "a", scope: "read admin", arbor_projects: [server.cwd] }),
        /arbor:read, arbor:run, arbor:admin/,
      ],
      ["projects", await idp.sign({ sub: "a", scope: "arbor:admin" }), /"arbor_projects"/],
      ["sub", await idp.sign({ scope: "arbor:admin", arbor_projects: [server.cwd] }), /"sub"/],
    ];
    for (const [name, token, reason] of cases) {
      const res = await server.api("/api/sessions", { token });
      const error = await errorOf(res);
      expect({ name, status: error.status, code: error.code }).toEqual({ name, status: 401, code: "unauthorized" });
      expect(error.message, name).toMatch(reason);
    }
    // Nothing was written by any refused request.
    expect((await server.store.listSessions({})).sessions).toEqual([]);
  });

  it("needs a bearer token from every caller, loopback too, and still takes the store's own tokens", async () => {
    const idp = await identityProvider();
    const server = await serverTrusting(idp.issuer, { jwksUrl: `${idp.issuer}/jwks.json`, projectsClaim: undefined });
    const anonymous = await errorOf(await server.api("/api/sessions"));
    expect(anonymous).toMatchObject({ status: 401, code: "unauthorized" });
    const { token } = await server.runtime.access.addToken({ scopes: ["read"] });
    expect((await server.api("/api/sessions", { token })).status).toBe(200);
    const admin = await idp.sign({ sub: "root", scope: "arbor:admin" });
    expect((await server.api("/api/sessions", { token: admin })).status).toBe(200);
    // With the key set named, discovery is never asked.
    expect(idp.counts.discovery).toBe(0);
  });

  it("refuses a discovery document that names another issuer", async () => {
    const idp = await identityProvider();
    const server = await serverTrusting(`${idp.issuer}/tenant`);
    const token = await idp.sign({ sub: "a", scope: "arbor:admin" });
    const error = await errorOf(await server.api("/api/sessions", { token }));
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/keys could not be read .*names the issuer/);
  });
});
