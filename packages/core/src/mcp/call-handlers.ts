import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitationAnswer, ElicitationForm, ElicitationRequest } from "./elicitations.js";
import type { McpLoginAsk } from "./oauth-provider.js";

export interface McpCallOptions {
  signal: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** Sent as the request's `_meta`: what the server may use beside the arguments (the call's idempotency key). */
  meta?: Record<string, unknown>;
  /** Answers a form the server asks the user to fill in during this call (MCP elicitation). */
  onElicit?: McpElicitHandler;
  /** Asks the person to log in when the server wants a login during this call (an `mcp_login` ask). */
  onLogin?: McpLoginAsk;
}

/** What answers a server's elicitation during a call (a form to fill in, or a URL to open): the person, through an ask. */
export type McpElicitHandler = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** The params of a server's elicitation request, as the SDK checked them. */
export interface ElicitParams {
  mode?: string;
  message: string;
  requestedSchema?: unknown;
  url?: string;
  elicitationId?: string;
}

/**
 * The elicitation handlers and login askers of one server's calls in flight: what a server asks of
 * the person while a call runs (a form, a URL, a login) goes to the call that is waiting on it.
 */
export class CallHandlers {
  private readonly elicitors = new Set<McpElicitHandler>();
  private readonly loginAskers = new Set<McpLoginAsk>();

  /** Runs `call` with its handlers registered for as long as it is in flight. */
  async during<T>(handlers: Pick<McpCallOptions, "onElicit" | "onLogin">, call: () => Promise<T>): Promise<T> {
    const { onElicit, onLogin } = handlers;
    if (onElicit) this.elicitors.add(onElicit);
    if (onLogin) this.loginAskers.add(onLogin);
    try {
      return await call();
    } finally {
      if (onElicit) this.elicitors.delete(onElicit);
      if (onLogin) this.loginAskers.delete(onLogin);
    }
  }

  /** One of the login askers in flight, which a login the server wants is put to. */
  loginAsker(): McpLoginAsk | undefined {
    return this.loginAskers.values().next().value;
  }

  /**
   * A server's elicitation request: the protocol does not say which of our calls it belongs to, so
   * it goes to the one call in flight; with none, or several (whose user cannot be told apart), it is
   * cancelled. Both modes: a form (no mode is form), and a URL the person opens.
   */
  async elicit(params: ElicitParams, signal: AbortSignal): Promise<ElicitationAnswer> {
    const [handler, ...others] = this.elicitors;
    if (!handler || others.length > 0) return { action: "cancel" };
    if (params.mode === "url") {
      // The SDK has checked the request against the URL mode's schema: both are there.
      const { message, url = "", elicitationId = "" } = params;
      return handler({ mode: "url", message, url, elicitationId }, signal);
    }
    if (params.mode !== undefined && params.mode !== "form") return { action: "cancel" };
    return handler({ mode: "form", message: params.message, requestedSchema: params.requestedSchema as ElicitationForm }, signal);
  }
}
