import { resolve } from "node:path";
import { type ApprovalLookup, type ListedApproval, listScopedApprovals } from "@arbor/core/session";
import { stringOption } from "../args.js";
import { resolveApprovalId, resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import { arborHomeOf } from "../store.js";
import { askLine } from "./asks.js";
import type { CommandContext } from "./command.js";

/** The session (checked to exist), its workspace or the one given, and the user's Arbor home. */
async function lookupOf(ctx: CommandContext): Promise<ApprovalLookup> {
  const sessionGiven = stringOption(ctx.values, "session");
  const sessionId = sessionGiven === undefined ? undefined : await resolveSessionId(ctx.store, sessionGiven);
  const given = stringOption(ctx.values, "cwd");
  const here = ctx.io.cwd ?? process.cwd();
  let workspace = given === undefined ? undefined : resolve(here, given);
  if (sessionId !== undefined) workspace ??= (await ctx.store.getSession(sessionId))?.cwd;
  const places = { workspace: workspace ?? resolve(here), home: arborHomeOf(ctx.io) };
  return { store: ctx.store, places, ...(sessionId === undefined ? {} : { sessionId }) };
}

const line = (a: ListedApproval) =>
  `${a.id}  ${a.scope.padEnd(7)}  ${a.agent}  ${a.permission}  ${a.pattern}${a.wildcard ? "  (wildcard)" : ""}`;

export async function runApprovalsList(ctx: CommandContext): Promise<void> {
  const approvals = await listScopedApprovals(await lookupOf(ctx));
  if (ctx.json) writeJson(ctx.io.stdout, { approvals });
  else writeLines(ctx.io.stdout, approvals.length === 0 ? ["No approvals in force."] : approvals.map(line));
}

export async function runApprovalsRevoke(ctx: CommandContext): Promise<void> {
  const lookup = await lookupOf(ctx);
  const id = resolveApprovalId(await listScopedApprovals(lookup), ctx.operands[0] as string);
  const revoked = await withSessionRuntime(ctx.io, ctx.store, "arbor approvals revoke", (runtime) =>
    runtime.asks.revokeApprovalById(id, lookup.sessionId, { workspace: lookup.places.workspace }),
  );
  if (ctx.json) writeJson(ctx.io.stdout, revoked);
  else writeLines(ctx.io.stdout, [`Revoked ${revoked.scope} approval ${revoked.id}: ${revoked.permission} ${revoked.pattern}.`]);
}

/** `arbor approvals pending`: the asks waiting in the store, oldest first, with their ids. */
export async function runApprovalsPending(ctx: CommandContext): Promise<void> {
  const given = stringOption(ctx.values, "session");
  const sessionId = given === undefined ? undefined : await resolveSessionId(ctx.store, given);
  const asks = await withSessionRuntime(ctx.io, ctx.store, "arbor approvals pending", (runtime) =>
    runtime.asks.listPending(sessionId),
  );
  if (ctx.json) writeJson(ctx.io.stdout, { asks });
  else writeLines(ctx.io.stdout, asks.length === 0 ? ["No asks waiting for an answer."] : asks.map(askLine));
}
