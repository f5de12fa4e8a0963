import { UsageError } from "../errors.js";

/** The scopes a token may hold (core's `ScopeSchema`; a test holds the two equal). */
export const TOKEN_SCOPES = ["read", "run", "admin"] as const;

/** `read,run` → the scopes, each known and none twice; a usage error names a bad one. */
export function parseScopes(text: string | undefined): ("read" | "run" | "admin")[] {
  if (text === undefined || text.trim() === "") throw new UsageError("give --scope: read, run or admin, comma-separated.");
  const scopes = text.split(",").map((s) => s.trim());
  for (const scope of scopes) {
    if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) {
      throw new UsageError(`unknown scope ${JSON.stringify(scope)}: the scopes are read, run and admin.`);
    }
  }
  return [...new Set(scopes)] as ("read" | "run" | "admin")[];
}
