import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
  TaskStatus,
} from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import {
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext, User } from "@a2a-js/sdk/server";
import { ArborError, isArborError, type PermissionReply } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import type { Principal } from "@arbor/core/store";
import type { ServerContext } from "../../context.js";
import { type Ask, type AskAnswer, askIdOf, askOf, elicitationElsewhere } from "../shared/asks.js";
import { readStep } from "../shared/run-output.js";
import { ProtocolRuntime } from "../shared/runs.js";
import { artifactsOf, askParts, lastOutcome, OutcomeReader, status, TERMINAL, taskOf, textPart } from "./tasks.js";
import { elicitationParts, isElicitationPending, waitingAsk, waitingElicitation } from "./waiting-asks.js";

/** What a client's message says, read once: its text, and an ask answer it carries as data. */
interface Said {
  text: string;
  data: { askId?: unknown; reply?: unknown; answers?: unknown } | undefined;
  agent: string | undefined;
  /** An entry of the task's session to continue from: the message starts a new branch of its tree there. */
  fromEntryId: string | undefined;
}

const YES = new Set(["yes", "y", "allow", "once", "approve", "ok"]);
const NO = new Set(["no", "n", "reject", "deny"]);

function said(message: Message | undefined): Said {
  if (message === undefined)
    throw new RequestMalformedError("invalid_input: The request has no message: send one with at least one text part.");
  const texts: string[] = [];
  let data: Said["data"];
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === "text") texts.push(content.value);
    else if (content?.$case === "data" && typeof content.value === "object" && content.value !== null) data = content.value;
    else
      throw new RequestMalformedError(
        `invalid_input: A message part of kind ${content?.$case ?? "empty"} is not supported: send text or data parts.`,
      );
  }
  const agent = typeof message.metadata?.agent === "string" ? message.metadata.agent : undefined;
  const fromEntryId = typeof message.metadata?.fromEntryId === "string" ? message.metadata.fromEntryId : undefined;
  return { text: texts.join("\n").trim(), data, agent, fromEntryId };
}

/** The client's answer to the ask its task waits on, from a data part (`askId`, `reply`) or its text (yes/always/no). */
function answerOf(ask: Ask, msg: Said): AskAnswer {
  const askId = askIdOf(ask);
  if (msg.data?.askId !== undefined && msg.data.askId !== askId) {
    throw new RequestMalformedError(`The task waits on ask ${askId}, not ${String(msg.data.askId)}.`);
  }
  if (ask.kind === "question") {
    // The reply's text is the answer (an option's label or the person's words); data may list several.
    const listed = msg.data?.answers;
    if (Array.isArray(listed) && listed.length > 0 && listed.every((a) => typeof a === "string")) {
      return { kind: "question", id: ask.id, answer: { answers: listed } };
    }
    const said = msg.text.trim();
    if (said.toLowerCase() === "dismiss") return { kind: "question", id: ask.id, answer: { dismissed: true } };
    if (said !== "") return { kind: "question", id: ask.id, answer: { answers: [said] } };
    throw new RequestMalformedError(`The task waits for the answer to question ${askId}: reply with it, or "dismiss".`);
  }
  const word = (typeof msg.data?.reply === "string" ? msg.data.reply : msg.text).trim().toLowerCase();
  if (ask.kind === "plan") {
    if (YES.has(word)) return { kind: "plan", planId: ask.planId, approved: true };
    if (NO.has(word)) return { kind: "plan", planId: ask.planId, approved: false, reason: "Rejected by the A2A client." };
  } else {
    const reply: PermissionReply | undefined = YES.has(word)
      ? "once"
      : word === "always"
        ? "always"
        : NO.has(word)
          ? "reject"
          : undefined;
    if (reply !== undefined) return { kind: "permission", id: ask.id, reply };
  }
  throw new RequestMalformedError(
    `The task waits for an answer to ask ${askId}: reply "yes", "always" or "no" (a plan takes "yes" or "no").`,
  );
}

/** A runtime error as the A2A error a client can act on; everything else as it is. */
function a2aError(err: unknown): unknown {
  if (!isArborError(err)) return err;
  if (err.code === "session_not_found") return new TaskNotFoundError(err.message);
  return new RequestMalformedError(`${err.code}: ${err.message}`);
}

/**
 * The caller of a request, as the SDK carries it to the handler: the principal the server resolved
 * from its bearer token (undefined for the local admin of a server without tokens).
 */
export class PrincipalUser implements User {
  constructor(readonly principal: Principal | undefined) {}
  get isAuthenticated(): boolean {
    return this.principal !== undefined;
  }
  get userName(): string {
    return this.principal?.id ?? "local";
  }
}

const principalIn = (context: ServerCallContext | undefined): Principal | undefined =>
  context?.user instanceof PrincipalUser ? context.user.principal : undefined;

const update = (sessionId: string, taskStatus: TaskStatus): StreamResponse => ({
  payload: { $case: "statusUpdate", value: { taskId: sessionId, contextId: sessionId, status: taskStatus, metadata: undefined } },
});

/**
 * Arbor's A2A request handler: a task is a session (task id = context id = session id) and its
 * state is its latest run's, read from the runtime and the session's event log — never kept here, so
 * another server over the same store answers for it. Every stream ends at the run's end or its ask.
 */
export class ArborA2AHandler implements A2ARequestHandler {
  private readonly runs: ProtocolRuntime;

  constructor(
    private readonly ctx: ServerContext,
    private readonly card: () => AgentCard,
  ) {
    this.runs = new ProtocolRuntime(ctx);
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    throw new UnsupportedOperationError("Arbor has no extended agent card: read /.well-known/agent-card.json.");
  }

  async sendMessage(params: SendMessageRequest, context?: ServerCallContext): Promise<Message | Task> {
    let last: Task | undefined;
    for await (const response of this.sendMessageStream(params, context)) {
      const payload = response.payload;
      if (payload?.$case === "task") last = payload.value;
      else if (payload?.$case === "statusUpdate" && last) last = { ...last, status: payload.value.status };
      else if (payload?.$case === "artifactUpdate" && last && payload.value.artifact) {
        last = { ...last, artifacts: [...last.artifacts, payload.value.artifact] };
      }
    }
    if (!last) throw new Error("The run ended without a task.");
    return last;
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context?: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const msg = said(params.message);
    const named = params.message?.taskId || params.message?.contextId || undefined;
    const principal = principalIn(context);
    let sessionId: string;
    let reader: RunEventReader;
    try {
      if (named !== undefined && !(await this.sees(principal, named, "run", "Continuing a task")))
        throw new TaskNotFoundError(`No task ${named}: start a new one by sending a message without a task or context id.`);
      const waiting = named === undefined ? undefined : await waitingAsk(this.runs, named, principal);
      if (named !== undefined && waiting !== undefined) {
        // The task is input-required: this message answers its ask, and the stream follows the run on.
        const answered = await this.runs.answer(answerOf(waiting, msg), principal);
        if (!answered) throw new RequestMalformedError("The ask was answered meanwhile: read the task again.");
        sessionId = answered.resumed ?? named;
        reader = await this.runs.reader(sessionId, { currentRun: true });
      } else {
        // A tool call waiting on an MCP server's form: no reply here reaches it, so say where one does.
        const elicitation = named === undefined ? undefined : await waitingElicitation(this.ctx.runtime, named);
        if (elicitation !== undefined) throw new RequestMalformedError(elicitationElsewhere(elicitation, "A2A"));
        if (msg.text === "") throw new RequestMalformedError("invalid_input: The message is empty: send at least one text part.");
        if (msg.fromEntryId !== undefined && named === undefined) {
          throw new RequestMalformedError(
            "invalid_input: metadata.fromEntryId names an entry of a task: send it with the task's contextId.",
          );
        }
        const begun = await this.runs.begin(
          {
            message: msg.text,
            ...(named === undefined ? {} : { sessionId: named }),
            ...(msg.agent === undefined ? {} : { agent: msg.agent }),
            ...(msg.fromEntryId === undefined ? {} : { fromEntryId: msg.fromEntryId }),
            ...(principal === undefined ? {} : { principal }),
          },
          { steer: false },
        );
        if (!("started" in begun)) throw new RequestMalformedError("The task is working already: wait for it or cancel it.");
        sessionId = begun.started.sessionId;
        reader = begun.started.reader;
      }
    } catch (err) {
      throw a2aError(err);
    }
    yield { payload: { $case: "task", value: taskOf(sessionId, status(TaskState.TASK_STATE_WORKING, sessionId)) } };
    yield* this.follow(sessionId, reader);
  }

  /** The run's events as status and artifact updates, to its end or to an ask still waiting. */
  private async *follow(sessionId: string, reader: RunEventReader): AsyncGenerator<StreamResponse, void, undefined> {
    const outcome = new OutcomeReader(sessionId);
    try {
      for (;;) {
        const step = await readStep(sessionId, reader);
        for (const e of step.events) {
          const ask = askOf(e.event);
          if (ask !== undefined) {
            // An ask answered already (a replayed run) is history; one still waiting ends the stream.
            if (!(await this.isPending(sessionId, ask))) continue;
            yield update(sessionId, status(TaskState.TASK_STATE_INPUT_REQUIRED, sessionId, askParts(ask)));
            return;
          }
          if (e.event.type === "elicitation_request" && (await isElicitationPending(this.ctx.runtime, sessionId, e.event.id))) {
            // The tool call waits on a person: said, like an ask, with where it is answered.
            yield update(sessionId, status(TaskState.TASK_STATE_INPUT_REQUIRED, sessionId, elicitationParts(e.event)));
            return;
          }
          outcome.take(e.event);
        }
        if (step.end) break;
      }
    } finally {
      reader.close();
    }
    const ended = outcome.outcome ?? (await lastOutcome(this.ctx.store, sessionId));
    if (ended === undefined) return;
    for (const artifact of artifactsOf(ended)) {
      yield {
        payload: {
          $case: "artifactUpdate",
          value: { taskId: sessionId, contextId: sessionId, artifact, append: false, lastChunk: true, metadata: undefined },
        },
      };
    }
    yield update(sessionId, status(ended.state, sessionId, ended.error === undefined ? undefined : [textPart(ended.error)]));
  }

  /**
   * Whether the session exists for the principal, which holds `scope` (else `scope_required`): a
   * session outside its projects is no task at all, as on every other door.
   */
  private async sees(principal: Principal | undefined, sessionId: string, scope: "read" | "run", what: string) {
    try {
      await this.ctx.runtime.access.session(principal, sessionId, scope, what);
      return true;
    } catch (err) {
      if (isArborError(err) && (err.code === "session_not_found" || err.code === "invalid_input")) return false;
      throw err;
    }
  }

  private async isPending(sessionId: string, ask: Ask): Promise<boolean> {
    if (ask.kind === "question") {
      return (await this.ctx.runtime.asks.listQuestions(sessionId)).some((q) => q.id === ask.id);
    }
    const { permissions, plans } = await this.runs.pendingAll(sessionId);
    return ask.kind === "permission" ? permissions.some((p) => p.id === ask.id) : plans.some((p) => p.planId === ask.planId);
  }

  /** The task as the store has it now: its run's state, an ask it waits on, or its last run's outcome. */
  async getTask(params: GetTaskRequest | { id: string }, context?: ServerCallContext): Promise<Task> {
    const sessionId = params.id;
    const principal = principalIn(context);
    if (!sessionId || !(await this.sees(principal, sessionId, "read", "Reading a task")))
      throw new TaskNotFoundError(`No task ${sessionId}.`);
    const ask = await waitingAsk(this.runs, sessionId, principal);
    if (ask) return taskOf(sessionId, status(TaskState.TASK_STATE_INPUT_REQUIRED, sessionId, askParts(ask)));
    const elicitation = await waitingElicitation(this.ctx.runtime, sessionId);
    if (elicitation)
      return taskOf(sessionId, status(TaskState.TASK_STATE_INPUT_REQUIRED, sessionId, elicitationParts(elicitation)));
    if (await this.runs.isBusy(sessionId)) return taskOf(sessionId, status(TaskState.TASK_STATE_WORKING, sessionId));
    const ended = await lastOutcome(this.ctx.store, sessionId);
    if (!ended) return taskOf(sessionId, status(TaskState.TASK_STATE_SUBMITTED, sessionId));
    return taskOf(
      sessionId,
      status(ended.state, sessionId, ended.error === undefined ? undefined : [textPart(ended.error)]),
      artifactsOf(ended),
    );
  }

  async listTasks(params: ListTasksRequest, context?: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    // The principal's sessions only: another project's are no tasks of its.
    const page = await this.ctx.runtime.access.listSessions(principalIn(context), {
      limit: pageSize,
      parentSessionId: null,
      ...(params.pageToken ? { cursor: params.pageToken } : {}),
    });
    const ids = params.contextId ? page.sessions.filter((s) => s.id === params.contextId) : page.sessions;
    const tasks = await Promise.all(ids.map((s) => this.getTask({ id: s.id }, context)));
    const wanted = params.status ? tasks.filter((t) => t.status?.state === params.status) : tasks;
    return { tasks: wanted, nextPageToken: page.nextCursor ?? "", pageSize, totalSize: wanted.length };
  }

  async cancelTask(params: CancelTaskRequest, context?: ServerCallContext): Promise<Task> {
    if (!(await this.sees(principalIn(context), params.id, "run", "Canceling a task")))
      throw new TaskNotFoundError(`No task ${params.id}.`);
    const task = await this.getTask(params, context);
    if (task.status && TERMINAL.has(task.status.state)) throw new TaskNotCancelableError(`Task ${params.id} has ended already.`);
    const aborted = await this.runs.abort(params.id, new ArborError("aborted", "The A2A client canceled the task."));
    if (!aborted) throw new TaskNotCancelableError(`Task ${params.id} has no run going.`);
    const reader = await this.runs.reader(params.id, { currentRun: true });
    // The task is canceled once its run's end is recorded.
    for await (const _ of this.follow(params.id, reader)) {
      // drained: the outcome is read back below
    }
    return this.getTask(params, context);
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context?: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.getTask(params, context);
    yield { payload: { $case: "task", value: task } };
    if (task.status && (TERMINAL.has(task.status.state) || task.status.state === TaskState.TASK_STATE_INPUT_REQUIRED)) return;
    yield* this.follow(params.id, await this.runs.reader(params.id, { currentRun: true }));
  }

  async createTaskPushNotificationConfig(_params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError(
      "Arbor does not send push notifications: stream the task or read it with GetTask.",
    );
  }
  async getTaskPushNotificationConfig(_params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError("Arbor does not send push notifications.");
  }
  async listTaskPushNotificationConfigs(
    _params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError("Arbor does not send push notifications.");
  }
  async deleteTaskPushNotificationConfig(_params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    throw new PushNotificationNotSupportedError("Arbor does not send push notifications.");
  }
}
