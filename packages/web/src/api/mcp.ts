import { z } from "zod";
import { api } from "./client.js";
import { parseMcpServerNames } from "./wire.js";

/** A resource the composer can attach as `@server:uri`. */
export interface McpResourceItem {
  uri: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
}

/** A resource template: its `{variables}` are filled in by hand once inserted. */
export interface McpTemplateItem {
  uriTemplate: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
}

/** A prompt and its arguments, which the composer asks for before sending it as `mcp_prompt`. */
export interface McpPromptItem {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  arguments: Array<{ name: string; description?: string | undefined; required: boolean }>;
}

/** One configured server's offer; `error` says why it could not be listed (a server that failed to start). */
export interface McpServerOffer {
  server: string;
  resources: McpResourceItem[];
  templates: McpTemplateItem[];
  prompts: McpPromptItem[];
  error?: string;
}

const Described = { title: z.optional(z.string()), description: z.optional(z.string()) };
const ResourcesShape = z.looseObject({
  resources: z.array(z.looseObject({ uri: z.string(), name: z.string(), ...Described })),
  templates: z.array(z.looseObject({ uriTemplate: z.string(), name: z.string(), ...Described })),
});
const PromptsShape = z.looseObject({
  prompts: z.array(
    z.looseObject({
      name: z.string(),
      ...Described,
      arguments: z.array(z.looseObject({ name: z.string(), description: z.optional(z.string()), required: z.boolean() })),
    }),
  ),
});

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What every enabled MCP server offers: its resources and templates (`GET /api/mcp/servers/{server}/resources`)
 * and prompts (`…/prompts`). A server that does not answer is listed with its error, not left out.
 */
export async function listMcpOffers(signal?: AbortSignal): Promise<McpServerOffer[]> {
  const init = signal ? { signal } : {};
  const names = await api("/api/mcp/servers", parseMcpServerNames, init);
  return Promise.all(
    names.map(async (server): Promise<McpServerOffer> => {
      const path = `/api/mcp/servers/${encodeURIComponent(server)}`;
      const [resources, prompts] = await Promise.allSettled([
        api(`${path}/resources`, (v) => ResourcesShape.parse(v), init),
        api(`${path}/prompts`, (v) => PromptsShape.parse(v), init),
      ]);
      const offer: McpServerOffer = {
        server,
        resources: resources.status === "fulfilled" ? resources.value.resources : [],
        templates: resources.status === "fulfilled" ? resources.value.templates : [],
        prompts: prompts.status === "fulfilled" ? prompts.value.prompts : [],
      };
      // A server may offer prompts and no resources (or the reverse): only both failing is an error.
      if (resources.status === "rejected" && prompts.status === "rejected") offer.error = message(resources.reason);
      return offer;
    }),
  );
}
