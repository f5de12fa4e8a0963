import { z } from "zod";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";

const McpServerParams = z.object({
  server: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, "A server is named as in mcp.servers of arbor.json.")
    .describe("The MCP server's name in mcp.servers."),
});

const McpServersResponse = z.object({
  servers: z
    .array(
      z.object({
        name: z.string(),
        enabled: z.boolean(),
        status: z.enum(["idle", "connecting", "ready", "failed"]),
        error: z.string().optional().describe("Why the server failed to start, when it did."),
      }),
    )
    .describe("The configured MCP servers, each started to be asked."),
});

const McpResourcesResponse = z.object({
  server: z.string(),
  resources: z.array(
    z.object({
      uri: z
        .string()
        .describe("Attach it to a message as `@<server>:<uri>` in the composer, or in `attachments` of POST /api/chat."),
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      mimeType: z.string().optional(),
      size: z.number().optional(),
    }),
  ),
  templates: z.array(
    z.object({
      uriTemplate: z.string().describe("A URI with `{variables}` to fill in before attaching."),
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      mimeType: z.string().optional(),
    }),
  ),
  subscribe: z.boolean().describe("The server announces changes, so a read is reused until it does."),
});

const McpPromptsResponse = z.object({
  server: z.string(),
  prompts: z.array(
    z.object({
      name: z.string().describe("Use it in `mcp_prompt` of POST /api/chat."),
      title: z.string().optional(),
      description: z.string().optional(),
      arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() })),
    }),
  ),
});

const errors = { 400: "The server name is not valid.", 404: "No MCP server of that name is configured." } as const;

/** What the inspector's composer offers of the configured MCP servers: their resources to attach and prompts to use. */
export function mcpRoutes({ runtime }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/mcp/servers",
        scope: "read",
        tag: "meta",
        summary: "The configured MCP servers and their state",
        responses: { 200: { description: "The servers.", schema: McpServersResponse } },
      },
      async (_input, c) => {
        const servers = await runtime.mcp.servers(c.req.raw.signal);
        return c.json({
          servers: servers.map((s) => ({
            name: s.name,
            enabled: s.enabled,
            status: s.state.status,
            ...(s.state.status === "failed" ? { error: s.state.error } : {}),
          })),
        });
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/mcp/servers/:server/resources",
        scope: "read",
        tag: "meta",
        summary: "An MCP server's resources and resource templates",
        params: McpServerParams,
        responses: { 200: { description: "What the server lists.", schema: McpResourcesResponse }, ...errors },
      },
      async ({ params }, c) => c.json(await runtime.mcp.resources(params.server, c.req.raw.signal)),
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/mcp/servers/:server/prompts",
        scope: "read",
        tag: "meta",
        summary: "An MCP server's prompts and their arguments",
        params: McpServerParams,
        responses: { 200: { description: "What the server offers.", schema: McpPromptsResponse }, ...errors },
      },
      async ({ params }, c) =>
        c.json({ server: params.server, prompts: await runtime.mcp.prompts(params.server, c.req.raw.signal) }),
    ),
  ];
}
