import { RUN_OPTIONS } from "../run/options.js";
import type { Command } from "./command.js";

export const mcpResources: Command = {
  name: "resources",
  operands: ["server"],
  summary: "List an MCP server's resources and resource templates, to attach to a prompt as @<server>:<uri>.",
  details: [
    'Each resource is shown with its URI, name and type; a template\'s {variables} are filled in by hand (e.g. @everything:demo://resource/dynamic/text/3). `arbor run "explain @<server>:<uri>"` attaches one: the runtime reads it and adds it to the message.',
    "With --json: {server, resources: [{uri, name, title?, description?, mimeType?, size?}], templates: [{uriTemplate, name, …}], subscribe}.",
  ],
  options: { cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]> },
  run: async (ctx) => (await import("./mcp-catalog-run.js")).runMcpResources(ctx),
};

export const mcpPrompts: Command = {
  name: "prompts",
  operands: ["server"],
  summary: "List an MCP server's prompts and their arguments, to use as /mcp:<server>:<prompt> k=v.",
  details: [
    '`arbor run "/mcp:<server>:<prompt> k=v"` (or the same line in arbor chat) has the server fill in the prompt and runs it; words that are not k=v follow the prompt\'s text. Quote a value with spaces: city="San Francisco".',
    "With --json: {server, prompts: [{name, title?, description?, arguments: [{name, description?, required}]}]}.",
  ],
  options: { cwd: RUN_OPTIONS.cwd as NonNullable<(typeof RUN_OPTIONS)["cwd"]> },
  run: async (ctx) => (await import("./mcp-catalog-run.js")).runMcpPrompts(ctx),
};
