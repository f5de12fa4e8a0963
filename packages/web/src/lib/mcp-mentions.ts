/** An MCP server's resource a message attaches, as POST /api/chat's `attachments` names it. */
export interface McpMention {
  server: string;
  uri: string;
}

/** `@server:uri` where the mention starts the text or follows a space (so `a@b.c` is not one). */
const MENTION = /(^|\s)@([A-Za-z0-9_-]+):(\S+)/g;

/**
 * The `@server:uri` mentions of configured servers in a message (the rule `arbor run` and `arbor chat`
 * follow): a name no server has stays text, sentence punctuation after a URI is not part of it. Pure.
 */
export function mcpMentionsOf(text: string, servers: readonly string[]): McpMention[] {
  const out: McpMention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const server = match[2] as string;
    const uri = (match[3] as string).replace(/[.,;!?]+$/, "");
    if (!servers.includes(server) || !uri.includes(":")) continue;
    if (!out.some((m) => m.server === server && m.uri === uri)) out.push({ server, uri });
  }
  return out;
}
