import { randomUUID } from "node:crypto";
import {
  type AgentApp,
  agent,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
  type SessionModeState,
} from "@agentclientprotocol/sdk";
import type { Runtime, Store } from "@arbor/core";
import { assertSessionId } from "@arbor/core/wire";
import type { ClusterRelay } from "../../cluster/cluster-node.js";
import { SERVER_VERSION } from "../../version.js";
import { ProtocolRuntime } from "../shared/runs.js";
import { answering } from "./errors.js";
import { ARBOR_EXT_METHODS, registerArborMethods } from "./ext-methods.js";
import { historyUpdates } from "./history.js";
import { type McpServers, mcpServersOf, serversKey } from "./mcp-servers.js";
import { type AcpConnectionState, type AcpSession, cancelTurn, runPromptTurn } from "./prompt-turn.js";

export interface AcpAgentDeps {
  runtime: Runtime;
  /** Default: the runtime's. */
  store?: Store;
  cluster?: ClusterRelay;
  /**
   * A runtime like `runtime` whose `arbor.json` MCP servers are joined by `servers` (those an editor
   * passes with a session; a name in both is the editor's). Called once per distinct set on a
   * connection; the caller closes what it returns. Absent: the editor's servers are refused.
   */
  runtimeWith?: (servers: McpServers) => Runtime;
}

/**
 * Arbor as an ACP agent, one app per client connection: sessions are Arbor sessions (a new one is
 * created by its first prompt), session modes are Arbor's agents, prompts stream their run as
 * `session/update`s, permission asks and plan approvals become `session/request_permission`, and
 * Arbor's session tree is reached through `session/list`, `session/load`, `session/resume` and the
 * `_arbor/*` methods. Bad input is refused with a JSON-RPC error before anything is written.
 */
export function createAcpAgent({ runtime, store = runtime.store, cluster, runtimeWith }: AcpAgentDeps): AgentApp {
  const runsOf = (r: Runtime) => new ProtocolRuntime({ runtime: r, store, watch: r.watch, cache: r.cache, cluster });
  const runs = runsOf(runtime);
  const state: AcpConnectionState = { sessions: new Map(), clientCapabilities: undefined };
  /** The runtimes of the editor's MCP server sets on this connection, by `serversKey`. */
  const withServers = new Map<string, ProtocolRuntime>();
  /** Where a session's prompts run: the runtime, or one that also has the MCP servers the editor passed. */
  const runsFor = (servers: readonly McpServer[] | undefined): ProtocolRuntime => {
    if (servers === undefined || servers.length === 0) return runs;
    if (runtimeWith === undefined) {
      throw RequestError.invalidParams({ mcpServers: servers.length }, "This agent starts only the MCP servers of arbor.json.");
    }
    const converted = mcpServersOf(servers);
    const key = serversKey(converted);
    let found = withServers.get(key);
    if (found === undefined) {
      found = runsOf(runtimeWith(converted));
      withServers.set(key, found);
    }
    return found;
  };

  const modesOf = (current: string): SessionModeState => ({
    currentModeId: current,
    availableModes: runtime.defaults().agents.map((a) => ({
      id: a.name,
      name: a.name,
      ...(a.description === undefined ? {} : { description: a.description }),
    })),
  });
  const known = (sessionId: string): AcpSession => {
    const session = state.sessions.get(sessionId);
    if (session === undefined) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  /** An Arbor session from the store, opened on this connection (`session/load`, `session/resume`). */
  const open = async (sessionId: string, cwd: string, servers: readonly McpServer[] | ProtocolRuntime | undefined) => {
    assertSessionId(sessionId);
    const meta = await store.getSession(sessionId);
    if (meta === undefined) throw RequestError.sessionNotFound(sessionId);
    const sessionRuns = servers instanceof ProtocolRuntime ? servers : runsFor(servers);
    const already = state.sessions.get(sessionId);
    if (already !== undefined) {
      // Opened again (a second load): a prompt going on keeps the runtime it started on.
      already.cwd = cwd;
      if (already.turn === undefined) already.runs = sessionRuns;
      return already;
    }
    const session: AcpSession = { id: sessionId, cwd, mode: meta.agentId ?? runtime.defaults().defaultAgent, runs: sessionRuns };
    state.sessions.set(sessionId, session);
    return session;
  };

  const app = agent({ name: "arbor" })
    .onRequest("initialize", ({ params }) => {
      state.clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: "arbor", title: "Arbor", version: SERVER_VERSION },
        authMethods: [],
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { embeddedContext: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
          mcpCapabilities: { http: runtimeWith !== undefined },
          _meta: { arbor: { methods: ARBOR_EXT_METHODS } },
        },
      };
    })
    .onRequest("session/new", ({ params }) =>
      answering(async () => {
        const session: AcpSession = {
          id: randomUUID(),
          cwd: params.cwd,
          mode: runtime.defaults().defaultAgent,
          runs: runsFor(params.mcpServers),
        };
        state.sessions.set(session.id, session);
        return { sessionId: session.id, modes: modesOf(session.mode) };
      }),
    )
    .onRequest("session/load", ({ params, client }) =>
      answering(async () => {
        const session = await open(params.sessionId, params.cwd, params.mcpServers);
        // The history is replayed before the response, as the protocol asks.
        for (const update of historyUpdates(await store.getActivePath(session.id), session.cwd)) {
          await client.notify("session/update", { sessionId: session.id, update });
        }
        return { modes: modesOf(session.mode) };
      }),
    )
    .onRequest("session/resume", ({ params }) =>
      answering(async () => ({ modes: modesOf((await open(params.sessionId, params.cwd, params.mcpServers)).mode) })),
    )
    .onRequest("session/list", ({ params }) =>
      answering(async () => {
        const page = await store.listSessions({
          parentSessionId: null,
          ...(params.cursor == null ? {} : { cursor: params.cursor }),
          ...(params.cwd == null ? {} : { cwd: params.cwd }),
        });
        return {
          sessions: page.sessions.map((s) => ({
            sessionId: s.id,
            cwd: s.cwd ?? params.cwd ?? "/",
            ...(s.title === undefined ? {} : { title: s.title }),
            updatedAt: s.updatedAt,
          })),
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
        };
      }),
    )
    .onRequest("session/close", ({ params }) => {
      const session = known(params.sessionId);
      cancelTurn(session);
      state.sessions.delete(session.id);
      return {};
    })
    .onRequest("session/set_mode", ({ params }) => {
      const session = known(params.sessionId);
      const agents = runtime.defaults().agents.map((a) => a.name);
      if (!agents.includes(params.modeId)) {
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `Unknown mode "${params.modeId}": the modes are ${agents.join(", ")}.`,
        );
      }
      session.mode = params.modeId;
      return {};
    })
    .onRequest("session/prompt", ({ params, client, signal }) =>
      answering(() =>
        runPromptTurn({ store, client, capabilities: state.clientCapabilities }, known(params.sessionId), params.prompt, signal),
      ),
    )
    .onNotification("session/cancel", ({ params }) => {
      const session = state.sessions.get(params.sessionId);
      if (session !== undefined) cancelTurn(session);
    });
  return registerArborMethods(app, { runtime, store, state, open });
}
