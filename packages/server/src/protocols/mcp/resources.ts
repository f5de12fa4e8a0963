import { isArborError, type Runtime, type SessionMeta, type Store } from "@arbor/core";
import type { Principal } from "@arbor/core/store";
import { getTrace, messageTrace } from "@arbor/core/trace";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";

/** What the resources, prompts and completions of one MCP session read, as its principal. */
export interface McpReadDeps {
  runtime: Runtime;
  store: Store;
  /** Absent (stdio, a library host): the local user, who sees everything. */
  principal: Principal | undefined;
}

/** The resource-not-found error of the MCP spec (not in the SDK's ErrorCode enum). */
export const RESOURCE_NOT_FOUND = -32002;

/** How many sessions resources/list and a completion look through: the newest, like the inspector's first page. */
const LISTED = 100;

/**
 * Arbor's failures as MCP errors: what the principal may not see or what does not exist is "not
 * found" (the same answer for both, as the routes' 404), bad input is invalid params.
 */
export function mcpErrorOf(err: unknown): unknown {
  if (!isArborError(err)) return err;
  const message = `${err.code}: ${err.message}`;
  if (err.code === "session_not_found" || err.code === "entry_not_found") return new McpError(RESOURCE_NOT_FOUND, message);
  if (err.code === "scope_required") return new McpError(ErrorCode.InvalidRequest, message);
  return new McpError(ErrorCode.InvalidParams, message);
}

async function mcpErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw mcpErrorOf(err);
  }
}

const jsonContents = (uri: URL, value: unknown): ReadResourceResult => ({
  contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(value, null, 2) }],
});

/** A template variable as one string (the SDK hands `string | string[]`). */
const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? "") : (value ?? ""));

/** The URIs of a session's resources. */
export const sessionUri = (id: string) => `arbor://sessions/${id}`;

/**
 * The session a resource URI is about (sessions and traces share ids), or undefined for a URI
 * that is not one of Arbor's: what subscriptions watch.
 */
export function sessionOfUri(uri: string): string | undefined {
  const m = /^arbor:\/\/(?:sessions|traces)\/([^/?#]+)(?:\/(?:tree|messages|goals|entries\/[^/?#]+))?$/.exec(uri);
  return m?.[1] === undefined ? undefined : decodeURIComponent(m[1]);
}

/**
 * The session a resources/subscribe names, checked the same way by the in-process and the cluster's
 * subscriptions: a URI that is not one of Arbor's is refused as a resource that is not there.
 */
export function sessionToSubscribe(uri: string): string {
  const sessionId = sessionOfUri(uri);
  if (sessionId === undefined)
    throw new McpError(RESOURCE_NOT_FOUND, `No resource ${uri}: Arbor's resources are arbor://sessions/… and arbor://traces/….`);
  return sessionId;
}

/** Completion of session ids: those the principal sees among the newest, starting with what was typed. */
export function sessionCompleter({ runtime, principal }: McpReadDeps): (value: string) => Promise<string[]> {
  return async (value) => {
    const page = await runtime.access.listSessions(principal, { limit: LISTED });
    return page.sessions.map((s) => s.id).filter((id) => id.startsWith(value));
  };
}

/** Completion of agent names: the agents a run may be started with. */
export function agentCompleter(runtime: Runtime): (value: string) => string[] {
  return (value) =>
    runtime
      .defaults()
      .agents.map((a) => a.name)
      .filter((name) => name.startsWith(value));
}

/**
 * Sessions and traces as MCP resources, every read checked as the routes check it (`read`, and the
 * principal's projects): a session (its metadata), its tree (every entry, every branch), the
 * messages of its active path, one entry, a trace's goal tree; and the agents runs may start with.
 * resources/list names the newest sessions the principal sees; the templates name the rest.
 */
export function registerArborResources(server: McpServer, deps: McpReadDeps): void {
  const { runtime, store, principal } = deps;
  const sessions = sessionCompleter(deps);
  const checked = (id: string, what: string) => runtime.access.session(principal, id, "read", what);
  const sessionTemplate = (uri: string, list?: () => Promise<{ resources: { uri: string; name: string }[] }>) =>
    new ResourceTemplate(uri, { list, complete: { session_id: sessions, trace_id: sessions } });

  /**
   * A JSON resource of the session (or trace) its template names by `key`, read (`read`, given what
   * the check read of the session) once the principal may read that session.
   */
  const sessionResource = (
    name: string,
    template: ResourceTemplate,
    key: "session_id" | "trace_id",
    about: { title: string; description: string },
    doing: string,
    read: (id: string, meta: SessionMeta) => unknown,
  ) =>
    server.registerResource(name, template, { ...about, mimeType: "application/json" }, (uri, vars) =>
      mcpErrors(async () => {
        const id = one(vars[key]);
        return jsonContents(uri, await read(id, await checked(id, doing)));
      }),
    );

  sessionResource(
    "session",
    sessionTemplate("arbor://sessions/{session_id}", async () => {
      const page = await mcpErrors(() => runtime.access.listSessions(principal, { limit: LISTED }));
      return {
        resources: page.sessions.map((s) => ({
          uri: sessionUri(s.id),
          name: s.title ?? s.id,
          description: `${s.agentType} session in ${s.cwd ?? "(no workspace)"}, updated ${s.updatedAt}`,
          mimeType: "application/json",
        })),
      };
    }),
    "session_id",
    { title: "Session", description: "A session's metadata (title, workspace, agent, status, totals)." },
    "Reading a session",
    (_id, meta) => meta,
  );

  sessionResource(
    "session-tree",
    sessionTemplate("arbor://sessions/{session_id}/tree"),
    "session_id",
    {
      title: "Session tree",
      description: "Every entry of a session, every branch: the entries, each entry's children, the active path and the labels.",
    },
    "Reading a session's tree",
    (id) => store.getSnapshot(id),
  );

  sessionResource(
    "session-messages",
    sessionTemplate("arbor://sessions/{session_id}/messages"),
    "session_id",
    {
      title: "Session messages",
      description: "The messages of a session's active path (root to leaf), with tool calls and results.",
    },
    "Reading a session's messages",
    async (id) => messageTrace(id, await store.getActivePath(id)),
  );

  server.registerResource(
    "session-entry",
    new ResourceTemplate("arbor://sessions/{session_id}/entries/{entry_id}", {
      list: undefined,
      complete: {
        session_id: sessions,
        // The entries of the session named beside it, when the principal sees that session.
        entry_id: async (value, context) => {
          const id = context?.arguments?.session_id;
          if (id === undefined) return [];
          try {
            await checked(id, "Completing entry ids");
            return (await store.listEntries(id)).map((e) => e.id).filter((e) => e.startsWith(value));
          } catch (err) {
            if (isArborError(err)) return [];
            throw err;
          }
        },
      },
    }),
    {
      title: "Session entry",
      description: "One entry of a session (a message, a label, a compaction…).",
      mimeType: "application/json",
    },
    (uri, vars) =>
      mcpErrors(async () => {
        const id = one(vars.session_id);
        const entryId = one(vars.entry_id);
        await checked(id, "Reading an entry");
        const entry = await store.getEntry(id, entryId);
        if (!entry) throw new McpError(RESOURCE_NOT_FOUND, `entry_not_found: Entry ${entryId} is not in session ${id}.`);
        return jsonContents(uri, entry);
      }),
  );

  sessionResource(
    "trace-goals",
    sessionTemplate("arbor://traces/{trace_id}/goals"),
    "trace_id",
    { title: "Trace goal tree", description: "A trace's goal tree (null when it set none) and its sub-traces." },
    "Reading a trace",
    async (id) => {
      const view = await getTrace(store, id);
      return { trace_id: id, goal_tree: view.goalTree, sub_traces: view.subTraces };
    },
  );

  server.registerResource(
    "agent",
    new ResourceTemplate("arbor://agents/{name}", {
      list: async () => ({
        resources: runtime.defaults().agents.map((a) => ({
          uri: `arbor://agents/${a.name}`,
          name: a.name,
          ...(a.description === undefined ? {} : { description: a.description }),
          mimeType: "application/json",
        })),
      }),
      complete: { name: agentCompleter(runtime) },
    }),
    {
      title: "Agent",
      description: "An agent runs may start with: its name, description and model.",
      mimeType: "application/json",
    },
    async (uri, vars) => {
      const name = one(vars.name);
      const agent = runtime.defaults().agents.find((a) => a.name === name);
      if (!agent)
        throw new McpError(RESOURCE_NOT_FOUND, `agent_not_found: No agent ${name}; resources/list names those there are.`);
      return jsonContents(uri, agent);
    },
  );
}
