import { writeJson, writeLines } from "../io.js";
import type { CommandContext } from "./command.js";
import { loginTarget } from "./mcp-login-run.js";

export async function runMcpLogout(ctx: CommandContext): Promise<void> {
  const { name, url, credentials } = loginTarget(ctx);
  const removed = await credentials.remove({ server: name, url });
  if (ctx.json) writeJson(ctx.io.stdout, { server: name, removed });
  else writeLines(ctx.io.stdout, [removed ? `Logged out of ${name}.` : `There was no login kept for ${name}.`]);
}
