import type { TokenRecord } from "../auth/tokens.js";

/**
 * The API tokens a server accepts besides its `--token` (see `TokenRecord`): hashes only. Any
 * process over the store adds, lists and revokes them; a server reads them on each request, so a
 * revoke holds at once everywhere.
 */
export interface TokenStore {
  /** Records a new token; `invalid_input` for a bad record or a taken id. */
  add(record: TokenRecord): Promise<TokenRecord>;
  /** Every token, revoked ones included, oldest first. */
  list(): Promise<TokenRecord[]>;
  /** The record with this hash (revoked or not), or undefined. */
  findByHash(hash: string): Promise<TokenRecord | undefined>;
  /** Marks the token revoked (again: unchanged); `token_not_found`. */
  revoke(id: string, at: string): Promise<TokenRecord>;
}

export function byCreated(a: TokenRecord, b: TokenRecord): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
