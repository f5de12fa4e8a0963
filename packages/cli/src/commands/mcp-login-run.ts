import { join } from "node:path";
import { ArborError } from "@arbor/core/open";
import { FileMcpCredentials, MCP_CREDENTIALS_DIR } from "@arbor/core/store";
import { McpManager } from "@arbor/core/tools";
import { flag, stringOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { openBrowser } from "../mcp/browser.js";
import { LoopbackAuthorizer } from "../mcp/loopback.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";

/** The named `url` server of the merged config, with where its login is kept. */
export function loginTarget(ctx: CommandContext) {
  const name = ctx.operands[0] ?? "";
  const cwd = workspaceDir(ctx.io, stringOption(ctx.values, "cwd"));
  const config = loadCommandConfig(ctx.io, cwd, {});
  const server = config.mcp.servers[name];
  if (!server) {
    const known = Object.keys(config.mcp.servers).join(", ") || "none";
    throw new ArborError("invalid_input", `No MCP server "${name}" is configured in arbor.json (configured: ${known}).`);
  }
  if (server.url === undefined)
    throw new ArborError("invalid_input", `MCP server "${name}" runs a command (stdio): only "url" servers log in.`);
  const credentials = new FileMcpCredentials(join(arborHomeOf(ctx.io), MCP_CREDENTIALS_DIR));
  return { name, server, url: server.url, config, credentials };
}

export async function runMcpLogin(ctx: CommandContext): Promise<void> {
  const { name, server, url, config, credentials } = loginTarget(ctx);
  // Listen where the client was registered last time, so its redirect URI still matches.
  const saved = await credentials.load({ server: name, url }).catch(() => undefined);
  const port = saved?.redirectUrl ? Number(new URL(saved.redirectUrl).port) || undefined : undefined;
  const abort = new AbortController();
  const stopInterrupt = ctx.io.onInterrupt?.(() => abort.abort());
  const noBrowser = flag(ctx.values, "no-browser");
  const authorizer = await LoopbackAuthorizer.start({
    ...(port !== undefined ? { port } : {}),
    signal: abort.signal,
    open: (link) => {
      ctx.io.stderr.write(`Log in to ${name} in your browser: ${link.href}\n`);
      if (!noBrowser) openBrowser(link, ctx.io.env);
    },
  });
  const manager = new McpManager({
    servers: { [name]: server },
    toolCacheTtl: config.mcp.toolCacheTtl,
    oauth: { credentials, authorizer },
  });
  try {
    const result = await manager.login(name, abort.signal);
    if (ctx.json) writeJson(ctx.io.stdout, result);
    else
      writeLines(ctx.io.stdout, [
        result.loggedIn
          ? `Logged in to ${name}${result.scope ? ` (scope: ${result.scope})` : ""}; it offers ${result.tools} tools.`
          : `${name} did not ask for a login; it offers ${result.tools} tools.`,
      ]);
  } finally {
    stopInterrupt?.();
    await manager.close();
    await authorizer.close();
  }
}
