import { join } from "node:path";
import { FileBlobStore, FileMcpCredentials, MCP_CREDENTIALS_DIR } from "@arbor/core/store";
import { McpManager, type McpPromptInfo, type McpResourceListing } from "@arbor/core/tools";
import { stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { truncateWords } from "../render/text.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";

/**
 * A manager for one command: servers are started, asked and stopped again. The logins `arbor mcp login`
 * kept are offered; a server that wants one fails saying so.
 */
export async function withManager<T>(ctx: CommandContext, use: (manager: McpManager, server: string) => Promise<T>): Promise<T> {
  const cwd = workspaceDir(ctx.io, stringOption(ctx.values, "cwd"));
  const config = loadCommandConfig(ctx.io, cwd, {});
  const home = arborHomeOf(ctx.io);
  const manager = new McpManager({
    servers: config.mcp.servers,
    toolCacheTtl: config.mcp.toolCacheTtl,
    blobs: new FileBlobStore(join(home, "blobs")),
    oauth: { credentials: new FileMcpCredentials(join(home, MCP_CREDENTIALS_DIR)) },
    workspace: cwd,
  });
  try {
    return await use(manager, ctx.operands[0] ?? "");
  } finally {
    await manager.close();
  }
}

const summary = (text: string | undefined) => truncateWords((text ?? "").split("\n")[0] ?? "", 80);

export function renderResources(listing: McpResourceListing): string[] {
  const lines: string[] = [];
  for (const r of listing.resources) {
    const about = summary(r.description ?? r.title);
    lines.push(`@${listing.server}:${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${about ? `  ${about}` : ""}`);
  }
  for (const t of listing.templates) {
    const about = summary(t.description ?? t.title);
    lines.push(`@${listing.server}:${t.uriTemplate}  ${t.name} (template)${about ? `  ${about}` : ""}`);
  }
  if (lines.length === 0) return [`MCP server ${listing.server} offers no resources.`];
  return lines;
}

export function renderPrompts(server: string, prompts: readonly McpPromptInfo[]): string[] {
  if (prompts.length === 0) return [`MCP server ${server} offers no prompts.`];
  return prompts.map((p) => {
    const args = p.arguments.map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(" ");
    const about = summary(p.description ?? p.title);
    return `/mcp:${server}:${p.name}${args ? ` ${args}` : ""}${about ? `  ${about}` : ""}`;
  });
}

export async function runMcpResources(ctx: CommandContext): Promise<void> {
  const listing = await withManager(ctx, (manager, server) => manager.listResources(server));
  if (ctx.json) writeJson(ctx.io.stdout, listing);
  else writeLines(ctx.io.stdout, renderResources(listing));
}

export async function runMcpPrompts(ctx: CommandContext): Promise<void> {
  const { server, prompts } = await withManager(ctx, async (manager, server) => ({
    server,
    prompts: await manager.listPrompts(server),
  }));
  if (ctx.json) writeJson(ctx.io.stdout, { server, prompts });
  else writeLines(ctx.io.stdout, renderPrompts(server, prompts));
}
