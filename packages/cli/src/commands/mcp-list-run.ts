import { join } from "node:path";
import { FileBlobStore, FileMcpCredentials, MCP_CREDENTIALS_DIR } from "@arbor/core/store";
import { McpManager, type McpServerStatus } from "@arbor/core/tools";
import { stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { truncateWords } from "../render/text.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";

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
  const cwd = workspaceDir(ctx.io, stringOption(ctx.values, "cwd"));
  const config = loadCommandConfig(ctx.io, cwd, {});
  const home = arborHomeOf(ctx.io);
  const manager = new McpManager({
    servers: config.mcp.servers,
    toolCacheTtl: config.mcp.toolCacheTtl,
    blobs: new FileBlobStore(join(home, "blobs")),
    // The logins `arbor mcp login` kept; a server that wants one is listed as failed, saying so.
    oauth: { credentials: new FileMcpCredentials(join(home, MCP_CREDENTIALS_DIR)) },
  });
  try {
    const servers = await manager.status();
    if (ctx.json) writeJson(ctx.io.stdout, { servers });
    else writeLines(ctx.io.stdout, renderMcpList(servers));
  } finally {
    await manager.close();
  }
}
