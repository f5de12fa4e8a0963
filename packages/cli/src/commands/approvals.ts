import { resolve } from "node:path";
import { type ApprovalLookup, type ListedApproval, listScopedApprovals } from "@arbor/core/session";
import { assertSessionId } from "@arbor/core/wire";
import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { resolveApprovalId, resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import { arborHomeOf } from "../store.js";
import { askLine } from "./asks.js";
import type { Command, CommandContext, CommandGroup } from "./command.js";

const LOOKUP_OPTIONS = {
  session: {
    type: "string",
    valueName: "id",
    description:
      "Also this session's approvals (its id or a prefix only it starts with); its recorded workspace is the project unless --cwd says otherwise.",
  },
  cwd: {
    type: "string",
    valueName: "dir",
    description: "The workspace whose project approvals (<dir>/.arbor/approvals.json) count (default: the current directory).",
  },
} as const;

function validateLookup(values: CommandContext["values"]): void {
  const session = stringOption(values, "session");
  if (session !== undefined) assertSessionId(session);
  if (stringOption(values, "cwd")?.trim() === "") throw new UsageError("--cwd is empty.");
}

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

const approvalsList: Command = {
  name: "list",
  operands: [],
  summary: "List the \"always\" approvals in force: a session's, the workspace's and the global ones.",
  details: [
    "Each line: id, scope, agent, permission, and the exact pattern it approves. Project approvals live in <workspace>/.arbor/approvals.json, global ones in $ARBOR_HOME/approvals.json. With --json: {approvals: [{id, scope, agent, permission, pattern, wildcard?}]}.",
  ],
  options: LOOKUP_OPTIONS,
  validate: validateLookup,
  async run(ctx) {
    const approvals = await listScopedApprovals(await lookupOf(ctx));
    if (ctx.json) writeJson(ctx.io.stdout, { approvals });
    else writeLines(ctx.io.stdout, approvals.length === 0 ? ["No approvals in force."] : approvals.map(line));
  },
};

const approvalsRevoke: Command = {
  name: "revoke",
  operands: ["id"],
  summary: "Withdraw an approval by the id 'arbor approvals list' shows (a session's needs --session).",
  details: [
    "The id may be shortened to any prefix only one of the approvals in force starts with. The next ask it would have settled is asked again. With --json: the approval revoked.",
  ],
  options: LOOKUP_OPTIONS,
  validate(values, operands) {
    validateLookup(values);
    if (operands[0]?.trim() === "") throw new UsageError("the approval id is empty.");
  },
  async run(ctx) {
    const lookup = await lookupOf(ctx);
    const id = resolveApprovalId(await listScopedApprovals(lookup), ctx.operands[0] as string);
    const revoked = await withSessionRuntime(ctx.io, ctx.store, "arbor approvals revoke", (runtime) =>
      runtime.asks.revokeApprovalById(id, lookup.sessionId, { workspace: lookup.places.workspace }),
    );
    if (ctx.json) writeJson(ctx.io.stdout, revoked);
    else
      writeLines(ctx.io.stdout, [`Revoked ${revoked.scope} approval ${revoked.id}: ${revoked.permission} ${revoked.pattern}.`]);
  },
};

const approvalsPending: Command = {
  name: "pending",
  operands: [],
  summary: "List the asks waiting for an answer (permissions and plans) in every process over the store, with their ids.",
  details: [
    "Each line: ask id, kind (permission or plan), session, what is asked, and when it expires unanswered. Answer one with 'arbor approve <ask-id>' (--deny to refuse); the id may be shortened to a prefix only one waiting ask starts with. With --json: {asks: [{kind, id, sessionId, createdAt, expiresAt, permission | plan}]}.",
  ],
  options: {
    session: {
      type: "string",
      valueName: "id",
      description: "Only this session's asks (its id or a prefix only it starts with).",
    },
  },
  validate(values) {
    const session = stringOption(values, "session");
    if (session !== undefined) assertSessionId(session);
  },
  async run(ctx) {
    const given = stringOption(ctx.values, "session");
    const sessionId = given === undefined ? undefined : await resolveSessionId(ctx.store, given);
    const asks = await withSessionRuntime(ctx.io, ctx.store, "arbor approvals pending", (runtime) =>
      runtime.asks.listPending(sessionId),
    );
    if (ctx.json) writeJson(ctx.io.stdout, { asks });
    else writeLines(ctx.io.stdout, asks.length === 0 ? ["No asks waiting for an answer."] : asks.map(askLine));
  },
};

export const approvalsGroup: CommandGroup = {
  name: "approvals",
  summary: 'List and revoke "always" approvals (session, project and global); list the asks waiting for an answer.',
  commands: [approvalsList, approvalsRevoke, approvalsPending],
};
