import { RUN_OPTIONS } from "../run/options.js";
import type { TopCommand } from "./command.js";

/** `arbor approve`: answer, after the fact, what a run without a terminal stopped on. */
export const approveCommand: TopCommand = {
  name: "approve",
  usage:
    "<ask-id> [--answer <text>] [--content <json>] [--deny] | <session>[:<plan>] [--reject] | <session> --permission <p> --pattern <glob>",
  summary: "Answer what a run waits on: an ask by its id, a plan waiting for approval, or allow a permission.",
  details: [
    "An ask by its id, as 'arbor approvals pending' lists it (perm_…, plan_…, elic_… or question_…, or a prefix only one waiting ask starts with): a permission ask is allowed once (--deny refuses it), a plan approved (--deny rejects it; --reason says why), an MCP server's elicitation (elic_…) accepted with --content '{\"field\": value}' (fields left out take the form's defaults; --deny declines it), a question answered with --answer (an option's label or number, several separated by commas when it takes several, or your own words; --deny dismisses it). The answer is recorded once in the store: the run waiting on it goes on in whichever process runs it; a plan whose run is gone carries on here.",
    "A run with no terminal to ask (stdin is not one) and no --yes stops on a plan waiting for approval or a permission ask, exits 3, and prints the command to answer it.",
    "A plan: 'arbor approve <session>' approves the plan waiting on the session's branch (or name it: <session>:<8 hex digits>); the run then carries on here with the plan's steps, shown as 'arbor run' shows a run. --reject [--reason …] records the refusal instead, and the run ends with it. Give --model/--base-url as for the run when the session's model needs them.",
    "A permission: --permission <name> --pattern <glob> [--agent <name>] records an 'always' approval in the session (as answering [a]lways would); continue the session with 'arbor run --session <id> \"go on\"'.",
    "Ids may be shortened to any prefix only one session starts with. Exit codes as for 'arbor run'.",
  ],
  options: {
    reject: { type: "boolean", description: "Do not approve the plan: the run ends with the refusal." },
    deny: { type: "boolean", description: "Refuse the ask: a permission is rejected, a plan not approved." },
    reason: { type: "string", valueName: "text", description: "With --reject or --deny: why, as the agent will read it." },
    content: {
      type: "string",
      valueName: "json",
      description: "With an elicitation's ask id: the form's fields as a JSON object.",
    },
    answer: {
      type: "string",
      valueName: "text",
      description: "A question's answer: an option (label or number; several with commas) or your own words.",
    },
    permission: { type: "string", valueName: "name", description: "Allow this permission (read, edit, bash, …) in the session." },
    pattern: {
      type: "string",
      valueName: "glob",
      description: "With --permission: what it allows, as the run's message named it.",
    },
    agent: { type: "string", valueName: "name", description: "With --permission: the agent it is for (default: build)." },
    model: RUN_OPTIONS.model!,
    "base-url": RUN_OPTIONS["base-url"]!,
    cwd: RUN_OPTIONS.cwd!,
    yes: RUN_OPTIONS.yes!,
  },
  run: async (io, values, operands) => (await import("./approve-run.js")).runApproveCommand(io, values, operands),
};
