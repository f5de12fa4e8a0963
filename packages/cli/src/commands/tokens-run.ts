import { resolve } from "node:path";
import type { TokenRecord } from "@arbor/core/store";
import { stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";
import { parseScopes } from "./token-scopes.js";

/** A record as `list` shows it: never its hash. */
function shown(record: TokenRecord) {
  return {
    id: record.id,
    ...(record.name === undefined ? {} : { name: record.name }),
    scopes: record.scopes,
    ...(record.projects === undefined ? {} : { projects: record.projects }),
    createdAt: record.createdAt,
    ...(record.revokedAt === undefined ? {} : { revokedAt: record.revokedAt }),
  };
}

/** `arbor tokens add`. */
export async function runTokensAdd(ctx: CommandContext): Promise<void> {
  const scopes = parseScopes(stringOption(ctx.values, "scope"));
  const project = stringOption(ctx.values, "project");
  const name = stringOption(ctx.values, "name");
  const { token, record } = await withSessionRuntime(ctx.io, ctx.store, "arbor tokens add", (runtime) =>
    runtime.access.addToken({
      scopes,
      ...(project === undefined ? {} : { projects: [resolve(ctx.io.cwd ?? process.cwd(), project)] }),
      ...(name === undefined ? {} : { name }),
    }),
  );
  if (ctx.json) {
    writeJson(ctx.io.stdout, { token, ...shown(record) });
    return;
  }
  writeLines(ctx.io.stdout, [
    token,
    `Token ${record.id}${record.name ? ` (${record.name})` : ""}: ${record.scopes.join(", ")}${record.projects ? ` in ${record.projects.join(", ")}` : ""}.`,
    "It is shown only now; the store keeps its hash. Send it as Authorization: Bearer <token>.",
  ]);
}

/** `arbor tokens list`. */
export async function runTokensList(ctx: CommandContext): Promise<void> {
  const tokens = await withSessionRuntime(ctx.io, ctx.store, "arbor tokens list", (runtime) => runtime.access.listTokens());
  if (ctx.json) {
    writeJson(ctx.io.stdout, { tokens: tokens.map(shown) });
    return;
  }
  if (tokens.length === 0) {
    writeLines(ctx.io.stdout, ["No tokens. `arbor tokens add --scope read,run` makes one."]);
    return;
  }
  writeLines(
    ctx.io.stdout,
    tokens.map(
      (t) =>
        `${t.id}  ${(t.name ?? "-").padEnd(12)}  ${t.scopes.join(",").padEnd(14)}  ${t.projects?.join(",") ?? "all projects"}  ${t.revokedAt ? `revoked ${t.revokedAt}` : `created ${t.createdAt}`}`,
    ),
  );
}

/** `arbor tokens revoke`. */
export async function runTokensRevoke(ctx: CommandContext): Promise<void> {
  const id = ctx.operands[0] as string;
  const record = await withSessionRuntime(ctx.io, ctx.store, "arbor tokens revoke", (runtime) => runtime.access.revokeToken(id));
  if (ctx.json) writeJson(ctx.io.stdout, shown(record));
  else writeLines(ctx.io.stdout, [`Revoked token ${record.id}${record.name ? ` (${record.name})` : ""}.`]);
}
