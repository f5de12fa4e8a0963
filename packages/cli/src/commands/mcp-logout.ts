import { RUN_OPTIONS } from "../run/options.js";
import type { Command } from "./command.js";

export const mcpLogout: Command = {
  name: "logout",
  operands: ["server"],
  summary: "Forget the login `arbor mcp login` kept for an MCP server (its tokens and client registration).",
  details: ["With --json: {server, removed}."],
  options: { cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]> },
  run: async (ctx) => (await import("./mcp-logout-run.js")).runMcpLogout(ctx),
};
