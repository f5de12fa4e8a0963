import { type AskHandler, DurableAskBase, type DurableAskOptions, offerToHandler, requestOf } from "../asks/durable-wait.js";
import { ArborError } from "../errors.js";
import type { AskRecord } from "../store/asks.js";
import { cancellingEnds } from "./call-asks.js";

/**
 * A login an MCP server wants during a run, waiting for the person: what `runtime.asks.listPending`
 * shows as kind `mcp_login`. `url` is the authorization server's page (PKCE S256, a fresh `state`);
 * the browser comes back to the runtime's callback, which finishes the login and answers the ask.
 * The PKCE verifier stays with the server's credentials (owner-only), never in the ask.
 */
export interface PendingMcpLogin {
  id: string;
  sessionId: string;
  /** The tool call that needs the server. */
  callId?: string;
  server: string;
  url: string;
  message: string;
}

/** Logged in (the callback finished the exchange), declined by the person, or given up (the call stopped, the ask expired). */
export type McpLoginAnswer = { action: "accept" } | { action: "decline"; reason?: string } | { action: "cancel" };

/** Answers a login ask when someone is at hand (a terminal that opens the page and listens); undefined leaves it to `runtime.asks`. */
export type McpLoginHandler = AskHandler<PendingMcpLogin, McpLoginAnswer>;

export type McpLoginAsksOptions = DurableAskOptions & { handler?: McpLoginHandler };

export type PendingMcpLoginInput = Omit<PendingMcpLogin, "id" | "message">;

/** Who hears of a login asked during a run's tool call, and of how it ended: the run, as events. */
export interface McpLoginListener {
  loginAsked?(pending: PendingMcpLogin): void;
  loginEnded?(pending: PendingMcpLogin, action: McpLoginAnswer["action"]): void;
}

export function pendingMcpLoginOf(record: AskRecord): PendingMcpLogin {
  return requestOf(record);
}

/** The `state` the ask's authorization URL carries: what the callback is matched by. */
function stateOf(pending: PendingMcpLogin): string | undefined {
  try {
    return new URL(pending.url).searchParams.get("state") ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * MCP logins as durable asks of kind `mcp_login`, kept and waited on like elicitations: listed and
 * answered from any process over the store, the tool call waiting on its record; unanswered past
 * `ttlMs` it is given up and the call fails with `mcp_login_declined`.
 */
export class McpLoginAsks extends DurableAskBase<string, McpLoginAnswer, McpLoginAsksOptions> {
  protected readonly kind = "mcp_login";

  /**
   * Records the ask and resolves with its answer; the call stopping closes the ask as cancelled. An
   * open ask of the same session, server and call (one a run cut off by a restart made) is waited on
   * instead of a new one: its link still works, its verifier being kept by its state.
   */
  async wait(request: PendingMcpLoginInput, signal: AbortSignal, listener?: McpLoginListener): Promise<McpLoginAnswer> {
    if (signal.aborted) return { action: "cancel" };
    const same = (r: AskRecord) => {
      const p = pendingMcpLoginOf(r);
      return p.server === request.server && p.callId === request.callId;
    };
    const open = (await this.openRecords(request.sessionId)).find(same);
    const message = `MCP server "${request.server}" needs you to log in: open the login page, sign in, and the run goes on.`;
    const asked: Omit<PendingMcpLogin, "id"> = { ...request, message };
    const record = open ?? (await this.recordCall(asked));
    const id = record.id;
    const waited = this.waiters.wait(id, record, id, signal, cancellingEnds<McpLoginAnswer>(this.options, id));
    // The run's stream announces it, and how it ended, so a client following the run shows it at once.
    const pending = pendingMcpLoginOf(record);
    listener?.loginAsked?.({ ...pending, id });
    void waited.then((answer) => listener?.loginEnded?.({ ...pending, id }, answer.action));
    offerToHandler(this.options.handler, pending, signal, (answer) => this.answer(record, answer));
    return waited;
  }

  /** Answers a login ask from any process, exactly once; throws `ask_already_answered` or `ask_expired` having changed nothing. */
  async answer(record: AskRecord, answer: McpLoginAnswer, by?: string): Promise<AskRecord> {
    return (await this.waiters.answer(record.id, answer, by)).record;
  }

  /** The open login ask whose authorization URL carries `state`; `mcp_login_failed` when none does (stale, forged, answered). */
  async byState(state: string | undefined): Promise<AskRecord> {
    const open = await this.openRecords();
    const record = state ? open.find((r) => stateOf(pendingMcpLoginOf(r)) === state) : undefined;
    if (!record)
      throw new ArborError(
        "mcp_login_failed",
        "No login is waiting for this answer (its state matches none): it was finished, declined or expired already. The run asks again when it needs the server.",
      );
    return record;
  }
}
