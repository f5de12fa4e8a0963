import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import type { Command, CommandGroup } from "./command.js";
import { parseScopes } from "./token-scopes.js";

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
  run: async (ctx) => (await import("./tokens-run.js")).runTokensAdd(ctx),
};

const tokensList: Command = {
  name: "list",
  operands: [],
  summary: "List the API tokens: id, name, scopes, projects, and whether revoked (never the tokens or their hashes).",
  details: ["With --json: {tokens: [{id, name?, scopes, projects?, createdAt, revokedAt?}]}."],
  options: {},
  run: async (ctx) => (await import("./tokens-run.js")).runTokensList(ctx),
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
  run: async (ctx) => (await import("./tokens-run.js")).runTokensRevoke(ctx),
};

export const tokensGroup: CommandGroup = {
  name: "tokens",
  summary: "API tokens for `arbor serve`: add (scopes, a project), list, revoke.",
  commands: [tokensAdd, tokensList, tokensRevoke],
};
