import { resolve } from "node:path";
import type { TokenRecord } from "@arbor/core/store";
import { ScopeSchema } from "@arbor/core/store";
import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { Command, CommandGroup } from "./command.js";

/** `read,run` → the scopes, each known and none twice; a usage error names a bad one. */
export function parseScopes(text: string | undefined): ("read" | "run" | "admin")[] {
  if (text === undefined || text.trim() === "") throw new UsageError("give --scope: read, run or admin, comma-separated.");
  const scopes = text.split(",").map((s) => s.trim());
  for (const scope of scopes) {
    if (!ScopeSchema.safeParse(scope).success) {
      throw new UsageError(`unknown scope ${JSON.stringify(scope)}: the scopes are read, run and admin.`);
    }
  }
  return [...new Set(scopes)] as ("read" | "run" | "admin")[];
}

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

const tokensAdd: Command = {
  name: "add",
  operands: [],
  summary: "Make an API token for `arbor serve` with the given scopes; it is printed once and kept only hashed.",
  details: [
    "Scopes: read (list, read and watch sessions), run (also chat, steer, fork, answer the asks of its own sessions), admin (also delete, revert, answer any ask, approvals, cache). With --project the token sees only sessions of that workspace; others are 404 to it.",
    "The server reads tokens from the store on each request, so a new token works at once. With --json: {token, id, name?, scopes, projects?, createdAt}.",
  ],
  options: {
    scope: { type: "string", valueName: "scopes", description: "read, run and/or admin, comma-separated (required)." },
    project: { type: "string", valueName: "dir", description: "Limit the token to sessions of this workspace." },
    name: { type: "string", valueName: "name", description: "A name for `arbor tokens list` (who or what holds it)." },
  },
  validate(values) {
    parseScopes(stringOption(values, "scope"));
    if (stringOption(values, "project")?.trim() === "") throw new UsageError("--project is empty.");
    if (stringOption(values, "name")?.trim() === "") throw new UsageError("--name is empty.");
  },
  async run(ctx) {
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
  },
};

const tokensList: Command = {
  name: "list",
  operands: [],
  summary: "List the API tokens: id, name, scopes, projects, and whether revoked (never the tokens or their hashes).",
  details: ["With --json: {tokens: [{id, name?, scopes, projects?, createdAt, revokedAt?}]}."],
  options: {},
  async run(ctx) {
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
  },
};

const tokensRevoke: Command = {
  name: "revoke",
  operands: ["id"],
  summary: "Revoke an API token by its id; every server over the store refuses it (401) from the next request on.",
  details: ["With --json: the token's record, revokedAt set."],
  options: {},
  validate(_values, operands) {
    if (operands[0]?.trim() === "") throw new UsageError("the token id is empty.");
  },
  async run(ctx) {
    const id = ctx.operands[0] as string;
    const record = await withSessionRuntime(ctx.io, ctx.store, "arbor tokens revoke", (runtime) =>
      runtime.access.revokeToken(id),
    );
    if (ctx.json) writeJson(ctx.io.stdout, shown(record));
    else writeLines(ctx.io.stdout, [`Revoked token ${record.id}${record.name ? ` (${record.name})` : ""}.`]);
  },
};

export const tokensGroup: CommandGroup = {
  name: "tokens",
  summary: "API tokens for `arbor serve`: add (scopes, a project), list, revoke.",
  commands: [tokensAdd, tokensList, tokensRevoke],
};
