import type { Config, RunInput } from "@arbor/core";

/** The MCP servers a prompt may name: those configured and enabled, when MCP is on. */
export function mcpServerNames(config: Config): string[] {
  if (!config.mcp.enabled) return [];
  return Object.entries(config.mcp.servers).flatMap(([name, server]) => (server.enabled ? [name] : []));
}

/**
 * A typed prompt as a run's input: `/mcp:<server>:<prompt> k=v …` uses the server's prompt (words
 * that are not `k=v` follow it as text), and each `@server:uri` mention of a configured server attaches
 * that resource. The runtime reads and fills them in; this only translates what was typed.
 */
export async function mcpPromptInput(
  text: string,
  servers: readonly string[],
): Promise<Pick<RunInput, "prompt" | "attachments" | "mcpPrompt">> {
  // Without a server to mention nor a `/mcp:` command, the text is the prompt: the MCP modules (core's
  // tools entry) load only for a prompt that may use them.
  if (servers.length === 0 && !text.trim().startsWith("/mcp:")) return { prompt: text };
  const { mcpMentions, parseMcpPromptCommand } = await import("@arbor/core/tools");
  const command = parseMcpPromptCommand(text);
  const prompt = command ? command.rest : text;
  const attachments = mcpMentions(prompt, servers);
  return {
    prompt,
    ...(command ? { mcpPrompt: { server: command.server, name: command.name, arguments: command.arguments } } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}
