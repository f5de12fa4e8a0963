import { ArborError, isArborError, type RunEvent, type Runtime, type Store } from "@arbor/core";
import type { Principal, Scope } from "@arbor/core/store";
import { getTrace } from "@arbor/core/trace";
import { assertSessionId } from "@arbor/core/wire";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ClusterRelay } from "../../cluster/cluster-node.js";
import { SERVER_VERSION } from "../../version.js";
import { type Ask, type AskAnswer, questionText } from "../shared/asks.js";
import type { ChatTurn } from "../shared/run-input.js";
import { type RunEventWire, readStep, toWire } from "../shared/run-output.js";
import { ProtocolRuntime } from "../shared/runs.js";
import { registerAgentPrompts } from "./prompts.js";
import { registerArborResources } from "./resources.js";
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
}

/** What a tool handler gets from the SDK that Arbor uses: cancellation and the progress channel. */
interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }): Promise<void>;
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

/** One line for a progress report, or undefined for events a client need not hear about live. */
function progressLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case "tool_start":
      return `tool ${event.tool} started`;
    case "tool_progress":
      return `tool ${event.tool}: ${event.title ?? "working"}`;
    case "tool_end":
      return `tool ${event.tool} ${event.is_error ? "failed" : "done"}`;
    case "llm_start":
      return `model called (${event.model})`;
    case "llm_end":
      return `model answered (${event.model})`;
    default:
      return undefined;
  }
}

/**
 * The run's wire over MCP: progress lines, asks naming the tool that answers them. The call's
 * result (the answer's text) is the run's result, not an ending on this wire.
 */
export const mcpProgressWire: RunEventWire<string> = {
  event: (e) => {
    const line = progressLine(e.event);
    return line === undefined ? [] : [line];
  },
  ask: (ask: Ask) => [
    ask.kind === "question"
      ? `waiting for an answer to the question ${JSON.stringify(questionText(ask.event))}: answer_question id=${ask.id}`
      : ask.kind === "permission"
        ? `waiting for permission ${ask.event.permission} (${ask.event.patterns.join(", ")}): answer_permission id=${ask.id}`
        : `waiting for plan approval: answer_plan plan_id=${ask.planId}`,
  ],
  end: () => [],
};

/** Runs to the end, reporting progress when asked for and aborting the run when the client cancels. */
async function runToEnd(runs: ProtocolRuntime, turn: ChatTurn, extra: CallExtra): Promise<CallToolResult> {
  // Refused with session_busy, before any event, when another run drives the session.
  const { sessionId, reader, handle } = await runs.start(turn);
  const onAbort = () => handle.abort(new ArborError("aborted", "The MCP client cancelled the request."));
  extra.signal.addEventListener("abort", onAbort, { once: true });
  const token = extra._meta?.progressToken;
  let progress = 0;
  try {
    for (;;) {
      const step = await readStep(sessionId, reader);
      for (const e of step.events) {
        if (token === undefined) continue;
        for (const message of toWire(mcpProgressWire, e)) {
          progress += 1;
          // A client that went away cannot be told; the run goes on to its end.
          await extra
            .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message } })
            .catch(() => {});
        }
      }
      if (step.end) break;
    }
  } finally {
    extra.signal.removeEventListener("abort", onAbort);
    reader.close();
  }
  const result = await handle.result;
  const summary = {
    session_id: result.sessionId,
    status: result.status,
    text: result.text,
    steps: result.steps,
    ...(result.error ? { error: result.error } : {}),
  };
  return {
    isError: result.status === "error",
    content: [
      {
        type: "text",
        text: result.text !== "" ? result.text : `Run ${result.status}${result.error ? `: ${result.error.message}` : ""}.`,
      },
    ],
    structuredContent: summary,
  };
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
export function createArborMcpServer({ runtime, store = runtime.store, cluster, principal }: ArborMcpDeps): McpServer {
  const runs = new ProtocolRuntime({ runtime, store, watch: runtime.watch, cache: runtime.cache, cluster });
  const by = principal === undefined ? {} : { principal };
  /** The session, when the principal may `scope` it: the same check, and the same 404, as the routes'. */
  const session = (sessionId: string, scope: Scope, what: string) =>
    principal ? runtime.access.session(principal, sessionId, scope, what) : Promise.resolve(undefined);
  const server = new McpServer({ name: "arbor", version: SERVER_VERSION }, { capabilities: { tools: {}, logging: {} } });
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
        "Runs an Arbor agent on a prompt to its end, in a new session or (with session_id) continuing one. Reports progress when the request carries a progress token; cancelling the request aborts the run, keeping what it did.",
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
        );
      }),
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
        return runToEnd(runs, { ...turnOf(args), sessionId: args.session_id, fromEntryId: args.entry_id }, extra as CallExtra);
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
  registerSubscriptions(server, readDeps);
  registerAgentPrompts(server, readDeps);
  return server;
}
