import type { OptionDefs } from "../args.js";
import { RUN_OPTIONS } from "../run/options.js";
import type { TopCommand } from "./command.js";

const OPTIONS: OptionDefs = {
  cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]>,
  model: RUN_OPTIONS.model as NonNullable<(typeof RUN_OPTIONS)["model"]>,
  "base-url": RUN_OPTIONS["base-url"] as NonNullable<(typeof RUN_OPTIONS)["base-url"]>,
};

export const acpCommand: TopCommand = {
  name: "acp",
  usage: "",
  summary: "Be an agent for an ACP client (an editor such as Zed) over stdio until stdin ends or Ctrl-C.",
  details: [
    "Speaks the Agent Client Protocol: sessions are Arbor sessions, the session modes are Arbor's agents (build, plan, …), a prompt streams the agent's text, thoughts, tool calls (with diffs and file locations) and plans, and permission asks and plan approvals are asked in the editor (allow once, always, reject).",
    "session/list, session/load (the history replayed) and session/resume reach the sessions of the store; _arbor/entries, _arbor/fork and _arbor/continue_from_entry reach its tree. stdout carries only ACP messages; diagnostics go to stderr. See docs/acp.md.",
  ],
  options: OPTIONS,
  run: async (io, values, operands) => (await import("./acp-run.js")).runAcpCommand(io, values, operands),
};
