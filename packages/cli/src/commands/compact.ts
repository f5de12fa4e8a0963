import { RUN_OPTIONS } from "../run/options.js";
import type { TopCommand } from "./command.js";

/** `arbor compact`: `runtime.compact` on one session, when the user wants room before the next prompt. */
export const compactCommand: TopCommand = {
  name: "compact",
  usage: '<session> [--focus "…"]',
  summary: "Summarize a session's history now, keeping its recent messages verbatim (manual compaction).",
  details: [
    "The compaction agent writes a structured summary (goal, constraints, progress, decisions, next steps, critical context, files) that replaces the older messages in what the model sees; an earlier summary is updated, not rewritten. Nothing is deleted: the messages stay in the session tree, and 'arbor sessions tree' shows the compaction entry.",
    "The summary is written by --model when given (a model that cannot be resolved is an error, exit 2); else by the model pool's compaction model (pool.compaction in arbor.json) if there is one, else by ARBOR_MODEL or `model` in arbor.json.",
    "Runs also compact on their own when the context nears the model's limit.",
  ],
  options: {
    focus: { type: "string", valueName: "text", description: "What the summary should keep in particular." },
    model: RUN_OPTIONS.model!,
    "base-url": RUN_OPTIONS["base-url"]!,
    cwd: { type: "string", valueName: "dir", description: "Where to read arbor.json from (default: the current directory)." },
  },
  run: async (io, values, operands) => (await import("./compact-run.js")).runCompactCommand(io, values, operands),
};
