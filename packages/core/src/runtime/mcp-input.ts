import { userContent } from "../loop/run-input.js";
import type { RunInput } from "../loop/run-types.js";
import type { McpManager } from "../mcp/manager.js";
import { unknownServer } from "../mcp/unknown-server.js";
import type { UserMessage } from "../model/message.js";
import type { McpAccess } from "./mcp-access.js";

/**
 * A run's input with its MCP parts resolved into the user message: the prompt's messages first (when
 * `mcpPrompt` names one), then the prompt's own text, then each attached resource under its URI. An
 * input with neither is returned as it is; a server, prompt or resource that fails fails the run
 * before it records anything.
 */
export async function resolveMcpInput(input: RunInput, mcp: McpAccess, signal?: AbortSignal): Promise<RunInput> {
  const attachments = input.attachments ?? [];
  if (input.mcpPrompt === undefined && attachments.length === 0) return input;
  const [{ mergeTexts, promptContent }, { resourceParts }] = await Promise.all([
    import("../mcp/prompts.js"),
    import("../mcp/resources.js"),
  ]);
  const manager = async (server: string): Promise<McpManager> => {
    if (!mcp) throw unknownServer(server, []);
    return mcp();
  };
  const content: UserMessage["content"] = [];
  const gap = () => {
    if (content.length > 0) content.push({ type: "text", text: "\n\n" });
  };
  if (input.mcpPrompt) {
    const { server, name, arguments: args } = input.mcpPrompt;
    content.push(...promptContent(await (await manager(server)).getPrompt(server, name, args ?? {}, signal)));
  }
  const own = userContent(input.prompt);
  if (own.some((p) => p.type !== "text" || p.text.trim() !== "")) {
    gap();
    content.push(...own);
  }
  for (const { mcpResource } of attachments) {
    const { server, uri } = mcpResource;
    const read = await (await manager(server)).readResource(server, uri, signal);
    gap();
    content.push(...resourceParts(server, read.contents));
  }
  const { attachments: _a, mcpPrompt: _p, ...rest } = input;
  return { ...rest, prompt: mergeTexts(content) };
}
