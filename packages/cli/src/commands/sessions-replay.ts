import { RUN_OPTIONS } from "../run/options.js";
import { type Command, checkSessionId } from "./command.js";
import { replayArgs } from "./sessions-replay-args.js";

/** `arbor sessions replay`: `runtime.runs.replay`, the CLI's door to editing a past `goal` call. */
export const sessionsReplay: Command = {
  name: "replay",
  operands: ["session", "entry"],
  summary: "Edit a past goal call and run on from there, on a new branch that becomes the session's leaf.",
  details: [
    "<entry> is the assistant message that made the goal call (an id or a prefix, as 'arbor sessions tree' shows). A new branch starts just before it; the call is redone with --args, a whole goal input as JSON (e.g. '{\"add\":\"Approach B, Test\"}'), and the run continues on that branch as 'arbor run --session' would. The old branch stays in the tree.",
    "Only goal calls can be replayed: they change only the plan, where any other tool would repeat its side effects. A message with several goal calls needs --call <tool call id>. Bad arguments change nothing (exit 2).",
    "With --json: the run's events, one JSON object a line, as 'arbor run --json' prints them.",
  ],
  options: {
    args: {
      type: "string",
      valueName: "json",
      description: "The goal call's new arguments, as a JSON object (required).",
    },
    call: {
      type: "string",
      valueName: "id",
      description: "The tool call to edit, when the message makes more than one goal call.",
    },
    model: RUN_OPTIONS.model!,
    "base-url": RUN_OPTIONS["base-url"]!,
    agent: RUN_OPTIONS.agent!,
    cwd: RUN_OPTIONS.cwd!,
    "max-turns": RUN_OPTIONS["max-turns"]!,
    yes: RUN_OPTIONS.yes!,
  },
  // Bad --args are found before any store is opened (see `replayArgs`).
  validate: async (values, operands) => {
    await checkSessionId(operands[0]);
    replayArgs(values);
  },
  run: async (ctx) => (await import("./sessions-replay-run.js")).runSessionsReplay(ctx),
};
