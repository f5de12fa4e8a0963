import { RUN_OPTIONS } from "../run/options.js";
import { type Command, validateSessionIdOperand } from "./command.js";

/** `arbor sessions summary`: `runtime.sessions.summary`, the `summary` helper asked for now. */
export const sessionsSummary: Command = {
  name: "summary",
  operands: ["session"],
  summary: "What a session did, in a few lines written now by the summary helper model (stored nowhere).",
  details: [
    "The summary is for people (what was asked, done, found and left), unlike a compaction summary, which is for the model. It reads the active path; a compacted session's summary stands for what it replaced. Nothing is written to the session, so a running session can be summarized.",
    "Written by --model when given (one that cannot be resolved is an error, exit 2); else by the model pool's summary model (pool.summary in arbor.json) if there is one, else by ARBOR_MODEL or `model` in arbor.json, else by the session's last model.",
    "With --json: {sessionId, summary, model, usage, cost, costKnown?}.",
  ],
  validate: validateSessionIdOperand,
  options: {
    model: RUN_OPTIONS.model!,
    "base-url": RUN_OPTIONS["base-url"]!,
    cwd: { type: "string", valueName: "dir", description: "Where to read arbor.json from (default: the current directory)." },
  },
  run: async (ctx) => (await import("./sessions-summary-run.js")).runSessionsSummary(ctx),
};
