import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { ArborError } from "../errors.js";
import { type Principal, ScopeSchema } from "./principal.js";

/** A token's id: how `arbor tokens list` and `revoke` name it, and the principal id its requests record. */
export const TokenIdSchema = z.string().regex(/^tok_[A-Za-z0-9_-]{1,60}$/, "a token id looks like tok_…");

/**
 * An API token as the store keeps it: never the token itself, only its SHA-256, so a copy of the
 * store gives no one a way in. `revokedAt` set: the token is refused from then on (the record stays,
 * so a revoked token's sessions still name who made them).
 */
export const TokenRecordSchema = z.object({
  id: TokenIdSchema,
  name: z.string().min(1).max(200).optional(),
  /** Hex SHA-256 of the token. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  scopes: z.array(ScopeSchema).min(1),
  /** Absolute workspace folders; absent: every project. */
  projects: z.array(z.string().min(1)).optional(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
});
export type TokenRecord = z.infer<typeof TokenRecordSchema>;

export function parseTokenRecord(record: TokenRecord): TokenRecord {
  const parsed = TokenRecordSchema.safeParse(record);
  if (!parsed.success) throw new ArborError("invalid_input", `The token record is not valid: ${parsed.error.message}`);
  return parsed.data;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Equal hashes, compared in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A new token (shown once) and its record (kept). */
export function newToken(init: { scopes: TokenRecord["scopes"]; projects?: string[]; name?: string; now?: Date }): {
  token: string;
  record: TokenRecord;
} {
  const token = `arbor_${randomBytes(32).toString("base64url")}`;
  const record = parseTokenRecord({
    id: `tok_${randomBytes(9).toString("base64url")}`,
    ...(init.name === undefined ? {} : { name: init.name }),
    hash: hashToken(token),
    scopes: [...new Set(init.scopes)],
    ...(init.projects === undefined ? {} : { projects: init.projects }),
    createdAt: (init.now ?? new Date()).toISOString(),
  });
  return { token, record };
}

/** The principal a live token record stands for. */
export function tokenPrincipal(record: TokenRecord): Principal {
  return {
    id: record.id,
    scopes: record.scopes,
    ...(record.projects === undefined ? {} : { projects: record.projects }),
  };
}

export function tokenNotFound(id: string): ArborError {
  return new ArborError("token_not_found", `No token ${id}; \`arbor tokens list\` shows them.`);
}
