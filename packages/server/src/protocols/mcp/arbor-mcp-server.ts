import { ArborError, isArborError, type Runtime, type Store } from "@arbor/core";
import type { Principal, Scope } from "@arbor/core/store";
import { getTrace } from "@arbor/core/trace";
import { assertSessionId } from "@arbor/core/wire";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ClusterRelay } from "../../cluster/cluster-node.js";
import { SERVER_VERSION } from "../../version.js";
import type { AskAnswer } from "../shared/asks.js";
import type { ChatTurn } from "../shared/run-input.js";
import { ProtocolRuntime } from "../shared/runs.js";
import { elicitAsksFor } from "./elicit-asks.js";
import { registerAgentPrompts } from "./prompts.js";
import { mcpErrorOf, registerArborResources } from "./resources.js";
import { RunTasks, StartedTasks } from "./run-tasks.js";
import { type CallExtra, runToEnd } from "./run-tool.js";
import { registerSharedSubscriptions } from "./shared-subscriptions.js";
import { registerSubscriptions } from "./subscriptions.js";

export interface ArborMcpDeps {
  runtime: Runtime;
  /** Default: the runtime's. */
  store?: Store;
  /** When this server is one instance of a cluster: answers reach runs other instances drive. */
  cluster?: ClusterRelay;
  /**
   * Who the MCP session acts as (the HTTP request that initialized it): every tool checks it in the
   * runtime as the routes do. Absent (stdio, a library host): the local user, who may do anything.
   */
  principal?: Principal;
  /**
   * One server per request (a cluster's `/mcp`): subscriptions are kept by the cluster and told on
   * the client's GET stream wherever it is held (shared-subscriptions.ts), and a call's abort is only the server closing, never the client
   * cancelling, so it leaves the run going.
   */
  stateless?: boolean;
  /**
   * The runs this process started as tasks, shared by every server of one endpoint so that a task is
   * known at once on any of them. Default: this server's own (stdio, a library host: one server).
   */
  startedTasks?: StartedTasks;
  /** On a stateless /mcp: the client's Mcp-Session-Id, which its resource subscriptions are kept under. */
  mcpClient?: string;
}

const SessionId = z.string().min(1).describe("A session (trace) id, as run_prompt or list_sessions return it.");

function json(value: unknown): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** An ArborError is the caller's mistake or a known failure: an `isError` result it can read and fix. */
async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    if (!isArborError(err)) throw err;
    return { isError: true, content: [{ type: "text", text: `${err.code}: ${err.message}` }] };
  }
}

/** The tool arguments of an answer, in the runtime's terms. */
const permissionAnswer = (args: {
  id: string;
  reply: "once" | "always" | "reject";
  message?: string | undefined;
  scope?: "session" | "project" | "global" | undefined;
}): AskAnswer => ({
  kind: "permission",
  id: args.id,
  reply: args.reply,
  ...(args.message === undefined ? {} : { message: args.message }),
  ...(args.scope === undefined ? {} : { scope: args.scope }),
});
const planAnswer = (args: { plan_id: string; approved: boolean; reason?: string | undefined }): AskAnswer => ({
  kind: "plan",
  planId: args.plan_id,
  approved: args.approved,
  ...(args.reason === undefined ? {} : { reason: args.reason }),
});

/**
 * Arbor as an MCP server: run a prompt (a new session or a continued one), continue from an entry,
 * fork, list and read sessions and traces, and answer pending permission asks and plan approvals;
 * sessions, traces and agents as resources (with subscriptions and completion), agents as prompts.
 * Bad arguments are refused by the schema (an MCP error) or by Arbor (an `isError` result naming
 * the problem) before anything is written.
 */
export function createArborMcpServer({
  runtime,
  store = runtime.store,
  cluster,
  principal,
  stateless = false,
  startedTasks = new StartedTasks(),
  mcpClient,
}: ArborMcpDeps): McpServer {
  const runs = new ProtocolRuntime({ runtime, store, watch: runtime.watch, cache: runtime.cache, cluster });
  const by = principal === undefined ? {} : { principal };
  /** The session, when the principal may `scope` it: the same check, and the same 404, as the routes'. */
  const session = (sessionId: string, scope: Scope, what: string) =>
    principal ? runtime.access.session(principal, sessionId, scope, what) : Promise.resolve(undefined);
  // Runs as tasks: their state is the run's in the store, so any instance (a cluster's stateless /mcp) answers for them.
  const tasks = new RunTasks({ runtime, store, runs, principal, started: startedTasks });
  const server = new McpServer(
    { name: "arbor", version: SERVER_VERSION },
    { capabilities: { tools: {}, logging: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } }, taskStore: tasks },
  );
  // Not stateless: the client's reply would be another HTTP request, to a server that never sent the ask.
  const elicitFor = (extra: RequestHandlerExtra<ServerRequest, ServerNotification>) =>
    stateless ? undefined : elicitAsksFor({ runs, runtime, principal }, server.server.getClientCapabilities(), extra);
  const runInput = {
    prompt: z.string().min(1).describe("What to ask the agent."),
    agent: z.string().min(1).optional().describe("The agent to run (default: build)."),
    max_turns: z.number().int().positive().optional().describe("At most this many model calls."),
  };
  const turnOf = (args: { prompt: string; agent?: string | undefined; max_turns?: number | undefined }): ChatTurn => ({
    ...by,
    message: args.prompt,
    ...(args.agent !== undefined ? { agent: args.agent } : {}),
    ...(args.max_turns !== undefined ? { maxTurns: args.max_turns } : {}),
  });

  server.registerTool(
    "run_prompt",
    {
      description:
        "Runs an Arbor agent on a prompt to its end, in a new session or (with session_id) continuing one. Reports progress when the request carries a progress token; cancelling the request aborts the run, keeping what it did. The run's asks (permissions, questions, MCP servers' forms) come as elicitation/create to a client that declared elicitation, else as progress messages naming the tool that answers them.",
      inputSchema: { ...runInput, session_id: SessionId.optional() },
    },
    (args, extra) =>
      answer(async () => {
        if (args.session_id !== undefined) assertSessionId(args.session_id);
        if (args.session_id !== undefined) await session(args.session_id, "run", "run_prompt");
        if (args.session_id !== undefined && !(await store.getSession(args.session_id))) {
          throw new ArborError(
            "session_not_found",
            `Session ${args.session_id} does not exist; list_sessions shows those that do.`,
          );
        }
        return runToEnd(
          runs,
          { ...turnOf(args), ...(args.session_id !== undefined ? { sessionId: args.session_id } : {}) },
          extra as CallExtra,
          !stateless,
          elicitFor(extra),
        );
      }),
  );

  server.experimental.tasks.registerToolTask(
    "start_run",
    {
      description:
        "Starts an Arbor agent on a prompt as an MCP task and answers at once: follow it with tasks/get (its status message is the run's latest step; input_required while an ask waits for answer_permission, answer_plan or answer_question), take its result with tasks/result, stop it with tasks/cancel. The task is the run, kept in Arbor's store: any server over it answers, also after a restart.",
      inputSchema: { ...runInput, session_id: SessionId.optional() },
      execution: { taskSupport: "required" },
    },
    {
      createTask: async (args) => {
        try {
          if (args.session_id !== undefined) assertSessionId(args.session_id);
          if (args.session_id !== undefined) await session(args.session_id, "run", "start_run");
          return await tasks.start({ ...turnOf(args), ...(args.session_id !== undefined ? { sessionId: args.session_id } : {}) });
        } catch (err) {
          throw mcpErrorOf(err);
        }
      },
      getTask: async (_args, extra) => {
        const task = await tasks.getTask(extra.taskId);
        if (!task) throw new McpError(ErrorCode.InvalidParams, `Task ${extra.taskId} not found.`);
        return task;
      },
      getTaskResult: async (_args, extra) => (await tasks.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );

  server.registerTool(
    "continue_from_entry",
    {
      description:
        "Continues a session from any entry: a user message is re-sent as a sibling (a new branch), any other entry gets the new prompt after it. Then runs like run_prompt.",
      inputSchema: { ...runInput, session_id: SessionId, entry_id: z.string().min(1) },
    },
    (args, extra) =>
      answer(async () => {
        assertSessionId(args.session_id);
        await session(args.session_id, "run", "continue_from_entry");
        // Refused before a run starts, so bad input is a clear error of this call, not a failed run.
        if (!(await store.getSession(args.session_id))) {
          throw new ArborError(
            "session_not_found",
            `Session ${args.session_id} does not exist; list_sessions shows those that do.`,
          );
        }
        if (!(await store.getEntry(args.session_id, args.entry_id))) {
          throw new ArborError(
            "entry_not_found",
            `Entry ${args.entry_id} is not in session ${args.session_id}; read_session lists its entries.`,
          );
        }
        // The runtime moves the leaf inside the run's hold on the session, so nothing else writes in between.
        return runToEnd(
          runs,
          { ...turnOf(args), sessionId: args.session_id, fromEntryId: args.entry_id },
          extra as CallExtra,
          !stateless,
          elicitFor(extra),
        );
      }),
  );

  server.registerTool(
    "fork_session",
    {
      description: "Makes a new session holding the path from the root to entry_id of session_id; the original is unchanged.",
      inputSchema: { session_id: SessionId, entry_id: z.string().min(1) },
    },
    (args) =>
      answer(async () => {
        assertSessionId(args.session_id);
        return json({ session: await runtime.sessions.fork(args.session_id, args.entry_id, by) });
      }),
  );

  server.registerTool(
    "list_sessions",
    {
      description: "Lists sessions, newest first, a page at a time (pass next_cursor back as cursor).",
      inputSchema: { limit: z.number().int().min(1).max(1000).optional(), cursor: z.string().min(1).optional() },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(async () => {
        const page = await runtime.access.listSessions(principal, {
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
          ...(args.cursor !== undefined ? { cursor: args.cursor } : {}),
        });
        return json({ sessions: page.sessions, next_cursor: page.nextCursor ?? null });
      }),
  );

  server.registerTool(
    "read_session",
    {
      description: "A session's metadata and the entries of its active path (root to leaf).",
      inputSchema: { session_id: SessionId },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(async () => {
        assertSessionId(args.session_id);
        await session(args.session_id, "read", "read_session");
        const meta = await store.getSession(args.session_id);
        if (!meta) throw new ArborError("session_not_found", `Session ${args.session_id} does not exist.`);
        return json({ session: meta, entries: await store.getActivePath(args.session_id) });
      }),
  );

  server.registerTool(
    "read_trace",
    {
      description: "A trace with its goal tree and sub-traces.",
      inputSchema: { trace_id: SessionId },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      answer(async () => {
        await session(args.trace_id, "read", "read_trace");
        const view = await getTrace(store, args.trace_id);
        return json({ trace: view.trace, goal_tree: view.goalTree, sub_traces: view.subTraces });
      }),
  );

  server.registerTool(
    "list_pending",
    {
      description:
        "Permission asks, plan approvals and questions that runs are waiting on, oldest first (one session's when given).",
      inputSchema: { session_id: SessionId.optional() },
      annotations: { readOnlyHint: true },
    },
    (args) => answer(async () => json(await runs.pendingAll(args.session_id, principal))),
  );

  server.registerTool(
    "answer_permission",
    {
      description:
        "Answers a pending permission ask: once, always (approves exactly what the ask showed, in `scope`), or reject.",
      inputSchema: {
        id: z.string().min(1),
        reply: z.enum(["once", "always", "reject"]),
        message: z.string().optional().describe("With reject: told to the model."),
        scope: z
          .enum(["session", "project", "global"])
          .optional()
          .describe("With always: this session (default), every session of the workspace, or everywhere."),
      },
    },
    (args) =>
      answer(async () => {
        runtime.access.require(principal, "run", "answer_permission");
        if (!(await runs.answer(permissionAnswer(args), principal))) {
          throw new ArborError("invalid_input", `No permission ask ${args.id} is waiting; list_pending shows those that are.`);
        }
        return json({ answered: args.id, reply: args.reply });
      }),
  );

  server.registerTool(
    "answer_plan",
    {
      description: "Approves or rejects a plan waiting for approval.",
      inputSchema: { plan_id: z.string().min(1), approved: z.boolean(), reason: z.string().optional() },
    },
    (args) =>
      answer(async () => {
        runtime.access.require(principal, "run", "answer_plan");
        const answered = await runs.answer(planAnswer(args), principal);
        return json({ plan_id: args.plan_id, approved: args.approved, resumed_session: answered?.resumed ?? null });
      }),
  );

  server.registerTool(
    "answer_question",
    {
      description:
        "Answers a question the agent asked (the question tool): the chosen option labels or your own words, or dismiss it.",
      inputSchema: {
        id: z.string().min(1),
        answers: z
          .array(z.string().min(1))
          .optional()
          .describe("The chosen options (several only when the question allows) or a free-text answer."),
        dismiss: z.boolean().optional().describe("Dismiss the question instead; the run ends with the refusal."),
        message: z.string().optional().describe("With dismiss: told to the model."),
      },
    },
    (args) =>
      answer(async () => {
        runtime.access.require(principal, "run", "answer_question");
        if (args.dismiss !== true && (args.answers === undefined || args.answers.length === 0)) {
          throw new ArborError("invalid_input", "Give answers, or dismiss: true.");
        }
        const given =
          args.dismiss === true
            ? { dismissed: true as const, ...(args.message === undefined ? {} : { message: args.message }) }
            : { answers: args.answers ?? [] };
        if (!(await runs.answer({ kind: "question", id: args.id, answer: given }, principal))) {
          throw new ArborError("invalid_input", `No question ${args.id} is waiting; list_pending shows those that are.`);
        }
        return json({ answered: args.id, ...given });
      }),
  );

  const readDeps = { runtime, store, principal };
  registerArborResources(server, readDeps);
  // Stateless, a subscription outlives the request: the cluster keeps it for every instance to read.
  if (!stateless) registerSubscriptions(server, readDeps);
  else if (cluster) registerSharedSubscriptions(server, readDeps, mcpClient, cluster.mcpSubscriptions);
  registerAgentPrompts(server, readDeps);
  return server;
}
