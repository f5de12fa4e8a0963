import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type McpReadDeps, mcpErrorOf, sessionCompleter, sessionUri } from "./resources.js";

/**
 * Arbor's agents as MCP prompts, one per agent a run may start with: the prompt hands the client's
 * model the task and how to give it to that agent (the run_prompt tool), and, when a session is
 * named, that session's metadata as an embedded resource to continue from. A session named is
 * checked like a read, so a prompt never shows what the principal may not see.
 */
export function registerAgentPrompts(server: McpServer, deps: McpReadDeps): void {
  const { runtime, principal } = deps;
  const sessions = sessionCompleter(deps);
  for (const agent of runtime.defaults().agents) {
    server.registerPrompt(
      agent.name,
      {
        title: `Arbor agent: ${agent.name}`,
        description: agent.description ?? `Runs Arbor's ${agent.name} agent on a task.`,
        argsSchema: {
          task: z.string().describe("What the agent should do."),
          session_id: completable(z.string().optional().describe("A session to continue (default: a new one)."), (value) =>
            sessions(value ?? ""),
          ),
        },
      },
      async ({ task, session_id }): Promise<GetPromptResult> => {
        const call = { prompt: task, agent: agent.name, ...(session_id ? { session_id } : {}) };
        const messages: GetPromptResult["messages"] = [
          {
            role: "user",
            content: {
              type: "text",
              text:
                `Give this task to Arbor's "${agent.name}" agent with the run_prompt tool, arguments ${JSON.stringify(call)}, ` +
                `and report what it did.\n\nTask: ${task}`,
            },
          },
        ];
        if (session_id) {
          try {
            const meta = await runtime.access.session(principal, session_id, "read", "Using a session in a prompt");
            messages.push({
              role: "user",
              content: {
                type: "resource",
                resource: { uri: sessionUri(meta.id), mimeType: "application/json", text: JSON.stringify(meta, null, 2) },
              },
            });
          } catch (err) {
            throw mcpErrorOf(err);
          }
        }
        return { description: `Arbor's ${agent.name} agent on: ${task}`, messages };
      },
    );
  }
}
