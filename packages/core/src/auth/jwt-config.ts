import { z } from "zod";

/**
 * `auth.jwt` in arbor.json: bearer tokens signed by an identity provider (an OIDC provider's access
 * or ID tokens, or any issuer of JWTs with a JWKS) act as principals, beside the store's own tokens.
 * Only the settings are here (read with the config, loading nothing); the verifier is `jwt.ts`.
 */
export const JwtAuthSchema = z.strictObject({
  /** The `iss` every token must carry; with no `jwksUrl`, also where the OIDC discovery document is. */
  issuer: z.url({ error: "must be the identity provider's issuer URL, e.g. https://login.example.com/" }),
  /** The `aud` (one of them) every token must carry: the name this Arbor deployment has at the provider. */
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  /** Where the signing keys are; unset, `jwks_uri` from `{issuer}/.well-known/openid-configuration`. */
  jwksUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL of a JSON Web Key Set" }).optional(),
  /** The claim holding the scopes: a space-separated string (OAuth's `scope`) or an array (`scp`, `roles`). */
  scopesClaim: z.string().min(1).default("scope"),
  /**
   * What marks a scope value as Arbor's: `arbor:read`, `arbor:run`, `arbor:admin` by default, so an
   * unrelated `read` the provider grants for another API gives nothing here. `""` takes bare names.
   */
  scopePrefix: z.string().default("arbor:"),
  /** A claim listing the absolute workspace folders the principal is limited to; unset: every project. */
  projectsClaim: z.string().min(1).optional(),
  /** Signature algorithms accepted (never `none`); the provider's keys must use one of them. */
  algorithms: z
    .array(z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]))
    .min(1)
    .default(["RS256", "PS256", "ES256", "EdDSA"]),
  /** Seconds of clock difference tolerated on `exp` and `nbf`. */
  clockToleranceSeconds: z.number().int().min(0).max(300).default(30),
});

export type JwtAuth = z.infer<typeof JwtAuthSchema>;
