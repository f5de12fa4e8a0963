import type { McpServerStatus } from "@arbor/core/tools";
import { writeJson, writeLines } from "../io.js";
import { truncateWords } from "../render/text.js";
import type { CommandContext } from "./command.js";
import { withManager } from "./mcp-catalog-run.js";

function stateText(server: McpServerStatus): string {
  if (!server.enabled) return "disabled";
  switch (server.state.status) {
    case "idle":
      return "not started";
    case "connecting":
      return "starting";
    case "ready":
      return `ready${server.state.serverName ? ` (${server.state.serverName} ${server.state.serverVersion ?? ""})`.trimEnd() : ""}`;
    case "failed":
      return `failed: ${server.state.error}`;
  }
}

/** One block per server: its name, transport and state, then its tools as the model sees them. */
export function renderMcpList(servers: readonly McpServerStatus[]): string[] {
  if (servers.length === 0) return ['No MCP servers configured. Add them under "mcp": { "servers": { … } } in arbor.json.'];
  const lines: string[] = [];
  for (const server of servers) {
    lines.push(`${server.name}  ${server.transport}  ${server.target}`);
    lines.push(`  ${stateText(server)}`);
    for (const tool of server.tools) {
      const summary = truncateWords((tool.description ?? "").split("\n")[0] ?? "", 80);
      lines.push(`  ${tool.name}${tool.readOnly ? " (read-only)" : ""}${summary ? `  ${summary}` : ""}`);
    }
  }
  return lines;
}

export async function runMcpList(ctx: CommandContext): Promise<void> {
  const servers = await withManager(ctx, (manager) => manager.status());
  if (ctx.json) writeJson(ctx.io.stdout, { servers });
  else writeLines(ctx.io.stdout, renderMcpList(servers));
}
