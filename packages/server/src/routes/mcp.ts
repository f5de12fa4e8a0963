import { isArborError } from "@arbor/core";
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

/** The authorization server's answer as the browser brings it back (RFC 6749 §4.1.2, RFC 9207 `iss`). */
const OAuthCallbackQuery = z.object({
  code: z.string().max(4000).optional(),
  state: z.string().max(500).optional().describe("Matches the answer to the login (the `mcp_login` ask) that sent the browser."),
  iss: z.string().max(2000).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});

/** The page the browser shows after the login: plain text, escaped. */
function page(text: string): string {
  const escaped = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? c);
  return `<!doctype html><meta charset="utf-8"><title>Arbor</title><p>${escaped}</p>`;
}

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
    defineRoute(
      {
        method: "GET",
        path: "/api/mcp/oauth/callback",
        tag: "meta",
        summary:
          "Where the browser comes back after logging in to an MCP server a run asked for (an mcp_login ask); needs no token",
        description:
          "The authorization server redirects here with `code` and `state`; the login whose `state` it is gets its tokens (the code exchanged with the PKCE verifier Arbor kept), and its ask is answered, so the run waiting on it (on any instance over the store) goes on. `error` (the person refused) declines the ask. The browser gets a short page.",
        public: true,
        query: OAuthCallbackQuery,
        responses: {
          200: { description: "The login was finished, or declined at the authorization server.", contentType: "text/html" },
          400: { description: "No login waits for this state, or the answer was refused.", contentType: "text/html" },
        },
      },
      async ({ query }, c) => {
        c.header("Cache-Control", "no-store");
        try {
          const done = await runtime.mcp.finishLogin({
            ...(query.code === undefined ? {} : { code: query.code }),
            ...(query.state === undefined ? {} : { state: query.state }),
            ...(query.iss === undefined ? {} : { iss: query.iss }),
            ...(query.error === undefined ? {} : { error: query.error }),
            ...(query.error_description === undefined ? {} : { errorDescription: query.error_description }),
          });
          return c.html(
            page(
              done.loggedIn
                ? `Logged in to ${done.server}. You can close this tab: the run goes on.`
                : `The login to ${done.server} was refused (${query.error}); the run goes on without it. You can close this tab.`,
            ),
          );
        } catch (err) {
          if (!isArborError(err, "mcp_login_failed")) throw err;
          return c.html(page(err.message), 400);
        }
      },
    ),
  ];
}
