import { RUN_OPTIONS } from "../run/options.js";
import type { Command } from "./command.js";

export const mcpLogin: Command = {
  name: "login",
  operands: ["server"],
  summary: "Log in to an MCP server behind OAuth: your browser opens its login page and Arbor keeps the token.",
  details: [
    "Arbor discovers the server's authorization server, registers itself (or uses mcp.servers.<server>.oauth), and sends you to its login page with PKCE; the answer comes back to a listener on 127.0.0.1. The link is printed too, for when no browser opens.",
    "Tokens are kept per server in $ARBOR_HOME/mcp-auth/ (a 0700 folder, 0600 files) and refreshed when they run out; runs use them. With --json: {server, loggedIn, scope?, tools}.",
  ],
  options: {
    cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]>,
    "no-browser": { type: "boolean", description: "Only print the login link; do not open a browser." },
  },
  run: async (ctx) => (await import("./mcp-login-run.js")).runMcpLogin(ctx),
};
