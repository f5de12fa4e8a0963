import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { McpSessionLimits } from "../../context.js";
import { principalOf } from "../../http/principal.js";
import { type ArborMcpDeps, createArborMcpServer } from "./arbor-mcp-server.js";
import { StartedTasks } from "./run-tasks.js";

export interface McpEndpoint {
  handle(c: Context): Promise<Response>;
  /** Ends every MCP session (their in-flight calls are cancelled). */
  close(): Promise<void>;
}

const DEFAULT_MAX_SESSIONS = 500;
const DEFAULT_IDLE_MS = 30 * 60_000;

export function jsonRpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A session's transport, when it was last used, and how many of its responses still stream. */
interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  /** The principal that initialized it: only it may use the session (another's request is a 404). */
  principal: string | undefined;
  lastUsed: number;
  open: number;
}

/**
 * `/mcp`: the Streamable HTTP transport of the MCP spec, one Arbor MCP server per MCP session
 * (`Mcp-Session-Id`), so progress and cancellation reach the call they belong to. Authentication
 * is the API's: the security middleware runs before this like before every route. Sessions are
 * bounded (`McpSessionLimits`): idle ones are ended when a request comes and they have lapsed, and
 * a session with a call still streaming is never idle.
 */
export function mcpEndpoint(deps: ArborMcpDeps, limits: McpSessionLimits = {}): McpEndpoint {
  const max = limits.max ?? DEFAULT_MAX_SESSIONS;
  const idleMs = limits.idleMs ?? DEFAULT_IDLE_MS;
  const now = limits.now ?? Date.now;
  const sessions = new Map<string, McpSession>();
  // A task started on one MCP session is known at once to every other of this process.
  const startedTasks = new StartedTasks();

  const end = (id: string, session: McpSession) => {
    sessions.delete(id);
    void session.transport.close().catch(() => {});
  };
  /** Ends lapsed sessions; then, when still full, the longest idle one. False: full of busy sessions. */
  const makeRoom = (): boolean => {
    const at = now();
    for (const [id, s] of sessions) if (s.open === 0 && at - s.lastUsed >= idleMs) end(id, s);
    if (sessions.size < max) return true;
    let oldest: [string, McpSession] | undefined;
    for (const entry of sessions) if (entry[1].open === 0 && (!oldest || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    if (!oldest) return false;
    end(...oldest);
    return true;
  };
  /** Serves a request of a session, counting a call's response as open until its body has been read or dropped. */
  const serve = async (session: McpSession, request: Request): Promise<Response> => {
    session.lastUsed = now();
    // Only calls (POST) keep a session busy: a client's standing GET stream for notifications does
    // not, so a client that stays connected but sends nothing is ended like any idle one (the spec
    // has it initialize again on the 404).
    if (request.method !== "POST") return session.transport.handleRequest(request);
    session.open++;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      session.open--;
      session.lastUsed = now();
    };
    try {
      const response = await session.transport.handleRequest(request);
      if (!response.body) {
        done();
        return response;
      }
      const body = response.body.pipeThrough(new TransformStream({ flush: done }));
      request.signal.addEventListener("abort", done, { once: true });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (err) {
      done();
      throw err;
    }
  };

  return {
    async handle(c) {
      const id = c.req.header("mcp-session-id");
      if (id !== undefined) {
        const session = sessions.get(id);
        if (session && session.open === 0 && now() - session.lastUsed >= idleMs) end(id, session);
        const live = sessions.get(id);
        if (!live || live.principal !== principalOf(c)?.id)
          return jsonRpcError(
            404,
            `MCP session ${id} is not known here (it ended, was idle past its limit, or the server restarted); initialize a new one.`,
          );
        return serve(live, c.req.raw);
      }
      if (!makeRoom()) {
        return jsonRpcError(503, `This server holds ${max} MCP sessions, all busy; try again once one ends.`);
      }
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, session);
        },
        onsessionclosed: (sessionId) => {
          sessions.delete(sessionId);
        },
      });
      const principal = principalOf(c);
      const session: McpSession = { transport, principal: principal?.id, lastUsed: now(), open: 0 };
      transport.onclose = () => {
        if (transport.sessionId !== undefined && sessions.get(transport.sessionId) === session)
          sessions.delete(transport.sessionId);
      };
      await createArborMcpServer({ ...deps, startedTasks, ...(principal === undefined ? {} : { principal }) }).connect(transport);
      // Anything but an initialize request without a session is refused by the transport itself.
      return serve(session, c.req.raw);
    },
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((s) => s.transport.close().catch(() => {})));
    },
  };
}
