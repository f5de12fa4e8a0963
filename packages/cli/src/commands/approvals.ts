import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { type Command, type CommandContext, type CommandGroup, checkSessionId } from "./command.js";

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

async function validateLookup(values: CommandContext["values"]): Promise<void> {
  const session = stringOption(values, "session");
  if (session !== undefined) await checkSessionId(session);
  if (stringOption(values, "cwd")?.trim() === "") throw new UsageError("--cwd is empty.");
}

const approvalsList: Command = {
  name: "list",
  operands: [],
  summary: "List the \"always\" approvals in force: a session's, the workspace's and the global ones.",
  details: [
    "Each line: id, scope, agent, permission, and the exact pattern it approves. Project approvals live in <workspace>/.arbor/approvals.json, global ones in $ARBOR_HOME/approvals.json. With --json: {approvals: [{id, scope, agent, permission, pattern, wildcard?}]}.",
  ],
  options: LOOKUP_OPTIONS,
  validate: validateLookup,
  run: async (ctx) => (await import("./approvals-run.js")).runApprovalsList(ctx),
};

const approvalsRevoke: Command = {
  name: "revoke",
  operands: ["id"],
  summary: "Withdraw an approval by the id 'arbor approvals list' shows (a session's needs --session).",
  details: [
    "The id may be shortened to any prefix only one of the approvals in force starts with. The next ask it would have settled is asked again. With --json: the approval revoked.",
  ],
  options: LOOKUP_OPTIONS,
  async validate(values, operands) {
    await validateLookup(values);
    if (operands[0]?.trim() === "") throw new UsageError("the approval id is empty.");
  },
  run: async (ctx) => (await import("./approvals-run.js")).runApprovalsRevoke(ctx),
};

const approvalsPending: Command = {
  name: "pending",
  operands: [],
  summary:
    "List the asks waiting for an answer (permissions, plans and the agent's questions) in every process over the store, with their ids.",
  details: [
    "Each line: ask id, kind (permission, plan or question), session, what is asked, and when it expires unanswered. Answer one with 'arbor approve <ask-id>' (--deny to refuse; a question takes --answer <text>); the id may be shortened to a prefix only one waiting ask starts with. With --json: {asks: [{kind, id, sessionId, createdAt, expiresAt, permission | plan | question}]}.",
  ],
  options: {
    session: {
      type: "string",
      valueName: "id",
      description: "Only this session's asks (its id or a prefix only it starts with).",
    },
  },
  async validate(values) {
    const session = stringOption(values, "session");
    if (session !== undefined) await checkSessionId(session);
  },
  run: async (ctx) => (await import("./approvals-run.js")).runApprovalsPending(ctx),
};

export const approvalsGroup: CommandGroup = {
  name: "approvals",
  summary: 'List and revoke "always" approvals (session, project and global).',
  commands: [approvalsList, approvalsRevoke, approvalsPending],
};
