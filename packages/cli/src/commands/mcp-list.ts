import { RUN_OPTIONS } from "../run/options.js";
import type { Command } from "./command.js";

export const mcpList: Command = {
  name: "list",
  operands: [],
  summary: "Show each configured MCP server, its state and its tools (starting the servers to ask them).",
  details: [
    'Servers come from "mcp": { "servers": … } in $ARBOR_HOME/arbor.json and <cwd>/arbor.json. Each is started, asked for its tools and stopped again; a server that fails says why.',
    "With --json: {servers: [{name, transport, target, enabled, state, tools}]}.",
  ],
  options: { cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]> },
  run: async (ctx) => (await import("./mcp-list-run.js")).runMcpList(ctx),
};
