import type { RunAttachment } from "../loop/run-types.js";

/** `@server:uri` where the mention starts the text or follows a space (so `a@b.c` is not one). */
const MENTION = /(^|\s)@([A-Za-z0-9_-]+):(\S+)/g;

/**
 * The `@server:uri` mentions of configured servers in a prompt, as attachments for the runtime to
 * read; a mention of a name no server has is left as text (an e-mail, a decorator). The mention stays
 * in the text too, so the model reads where the attached resource was asked for. Pure.
 */
export function mcpMentions(text: string, servers: readonly string[]): RunAttachment[] {
  const out: RunAttachment[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const server = match[2] as string;
    // Sentence punctuation after a mention is not part of the URI.
    const uri = (match[3] as string).replace(/[.,;!?]+$/, "");
    if (!servers.includes(server) || !uri.includes(":")) continue;
    const key = `${server}\0${uri}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ mcpResource: { server, uri } });
  }
  return out;
}

/** `/mcp:<server>:<prompt> k=v k2="v w"`: a prompt of a server and its arguments, as typed after the command. */
export interface McpPromptCommand {
  server: string;
  name: string;
  arguments: Record<string, string>;
  /** Words that were not `k=v`, kept as the run's text after the prompt's messages. */
  rest: string;
}

const COMMAND = /^\/mcp:([A-Za-z0-9_-]+):(\S+)(?:\s+([\s\S]*))?$/;
const WORD = /([A-Za-z_][\w-]*)=(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))|(\S+)/g;

/** Reads a `/mcp:<server>:<prompt>` command; undefined for any other text. Pure. */
export function parseMcpPromptCommand(text: string): McpPromptCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const args: Record<string, string> = {};
  const rest: string[] = [];
  for (const word of (match[3] ?? "").matchAll(WORD)) {
    if (word[5] !== undefined) rest.push(word[5]);
    else args[word[1] as string] = word[2] !== undefined ? word[2].replace(/\\(.)/g, "$1") : (word[3] ?? word[4] ?? "");
  }
  return { server: match[1] as string, name: match[2] as string, arguments: args, rest: rest.join(" ") };
}
