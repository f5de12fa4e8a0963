import type { Runtime } from "@arbor/core";
import { ArborError, type Store } from "@arbor/core/open";

/** What `runtime.asks.listPending` lists: one ask waiting for an answer, a permission or a plan. */
export type PendingAskView = Awaited<ReturnType<Runtime["asks"]["listPending"]>>[number];

/** Ask ids start with their kind (`perm_…`, `plan_…`, `elic_…`, `question_…`, `login_…`): a target that does is an ask, not a session. */
export const ASK_ID = /^(perm|plan|elic|question|login)_[A-Za-z0-9_-]*$/;

/** How many candidates an ambiguous prefix lists. */
const SHOWN = 8;

/**
 * An ask id as the user typed it: the whole id of any ask in the store, or a prefix only one
 * waiting ask starts with (like session ids). Throws `ask_not_found` or `invalid_id`.
 */
export async function resolveAskId(store: Store, pending: readonly PendingAskView[], given: string): Promise<string> {
  if (await store.getAsk(given)) return given;
  const matches = pending.filter((a) => a.id.startsWith(given)).map((a) => a.id);
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) {
    throw new ArborError(
      "ask_not_found",
      `No ask waiting for an answer has the id or id prefix ${given}; 'arbor approvals pending' lists them.`,
    );
  }
  matches.sort();
  const shown = matches.slice(0, SHOWN).join(", ");
  throw new ArborError(
    "invalid_id",
    `Ask id prefix ${given} is ambiguous: ${matches.length} asks start with it (${shown}${matches.length > SHOWN ? ", …" : ""}). Type more of the id.`,
  );
}

/** What the ask is about, in one line: `read .env (agent build)`, `plan "Title" (3 steps)` or `question "…" (a / b)`. */
export function askSubject(ask: PendingAskView): string {
  switch (ask.kind) {
    case "permission": {
      const { request, agent, tool } = ask.permission;
      const patterns = request.patterns.join(", ");
      return `${request.permission}${patterns ? ` ${patterns}` : ""} (agent ${agent}${tool && tool !== request.permission ? `, tool ${tool}` : ""})`;
    }
    case "plan":
      return `plan "${ask.plan.title}" (${ask.plan.steps.length} step${ask.plan.steps.length === 1 ? "" : "s"}, ${ask.plan.planId})`;
    case "elicitation": {
      const e = ask.elicitation;
      if (e.mode === "url") return `MCP server ${e.server} asks you to open ${e.url}: ${e.message} (accept or --deny)`;
      return `MCP server ${e.server} asks: ${e.message} (fields: ${Object.keys(e.requestedSchema.properties).join(", ") || "none"})`;
    }
    case "mcp_login":
      return `MCP server ${ask.mcpLogin.server} needs you to log in: open ${ask.mcpLogin.url} (or --deny)`;
    case "question": {
      const options = ask.question.options?.map((o) => o.label).join(" / ");
      return `question "${ask.question.question}"${options ? ` (${options}${ask.question.multiple ? ", several" : ""})` : " (free text)"} (agent ${ask.question.agent})`;
    }
  }
}

/** One line of `arbor approvals pending`. */
export function askLine(ask: PendingAskView): string {
  return `${ask.id}  ${ask.kind.padEnd(10)}  ${ask.sessionId}  ${askSubject(ask)}  expires ${ask.expiresAt}`;
}
