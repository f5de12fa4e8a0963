import { RUN_OPTIONS } from "../run/options.js";
import type { Command } from "./command.js";

export const mcpServe: Command = {
  name: "serve",
  operands: [],
  summary: "Serve Arbor to an MCP client over stdio until stdin ends or Ctrl-C.",
  details: [
    "Tools: run_prompt (a new session, or continue one with session_id), continue_from_entry, fork_session, list_sessions, read_session, read_trace, list_pending, answer_permission, answer_plan. A run reports progress to a client that asks for it, and cancelling its request aborts the run (what it did is kept).",
    "Permission asks and plan approvals wait for answer_permission / answer_plan (list_pending shows them). stdout carries only MCP messages; diagnostics go to stderr.",
    "The same tools are served over Streamable HTTP at /mcp by 'arbor serve', behind its token.",
  ],
  options: {
    cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]>,
    model: RUN_OPTIONS.model as NonNullable<(typeof RUN_OPTIONS)["model"]>,
    "base-url": RUN_OPTIONS["base-url"] as NonNullable<(typeof RUN_OPTIONS)["base-url"]>,
  },
  run: async (ctx) => (await import("./mcp-serve-run.js")).runMcpServe(ctx),
};
