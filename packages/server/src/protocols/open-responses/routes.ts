import { type Entry, isArborError } from "@arbor/core";
import { type ClientFunction, clientFunctionTool } from "@arbor/core/session";
import { z } from "zod";
import type { ServerContext } from "../../context.js";
import { ApiError, type ApiErrorCode, statusFor } from "../../errors.js";
import { asPrincipal, principalOf } from "../../http/principal.js";
import type { Route } from "../../http/route.js";
import { SESSION_HEADER } from "../http-chat/sse-response.js";
import type { ChatTurn } from "../shared/run-input.js";
import { readStep } from "../shared/run-output.js";
import { ProtocolRuntime } from "../shared/runs.js";
import { openAiRoute, ParamError, parseParam } from "./openai-errors.js";
import { outputOfTurn } from "./output-items.js";
import { answerPause, pauseAnswered } from "./paused-answers.js";
import { readInput, readTools } from "./request-input.js";
import { drain, type PausedResponses, type ResponseEnd, type ResponseRun, responseEvents, sseOf } from "./responder.js";
import { isUserTurn, nearestOnPath, parseResponseId, type ResponseRef, responseId, turnEntries } from "./response-ids.js";
import { usageOf } from "./response-wire.js";
import { CompactBody, CreateResponseBody, OpenAiErrorBody, ResponseObject, ResponseParams } from "./schemas.js";

const ERRORS = {
  400: { description: "Invalid body or id: `{error: {message, type, param, code}}`.", schema: OpenAiErrorBody },
  404: {
    description: "No such response (its session or entry is gone, or it was made with store: false).",
    schema: OpenAiErrorBody,
  },
};

const seconds = (iso: string | number | undefined) =>
  Math.floor((iso === undefined ? Date.now() : new Date(iso).getTime()) / 1000);

/** The Responses API over the runtime: create (streaming or not), retrieve, compact, and the agents as models. */
export function responsesRoutes(ctx: ServerContext, paused: PausedResponses): Route[] {
  const runs = new ProtocolRuntime(ctx);
  const { store, runtime } = ctx;

  /** The stored turn a response id names; 404 (naming `param`) when it is gone or was never stored. */
  async function turnOf(id: string, param: string): Promise<{ ref: ResponseRef; turn: Entry[] }> {
    let ref: ResponseRef;
    try {
      ref = parseResponseId(id);
    } catch (err) {
      throw new ParamError("invalid_id", (err as Error).message, param);
    }
    const turn =
      ref.unstored && !paused.get(id)
        ? undefined
        : await turnEntries(store, ref).catch((err: unknown) => {
            if (isArborError(err, "session_not_found")) return undefined;
            throw err;
          });
    if (!turn)
      throw new ParamError(
        "not_found",
        `Response ${id} does not exist (its session was deleted, or it was made with store: false).`,
        param,
      );
    return { ref, turn };
  }

  const end: ResponseEnd = {
    paused,
    async stepCalls(sessionId) {
      const calls = await nearestOnPath(store, sessionId, (entry) =>
        entry.type === "message" && entry.message.role === "assistant"
          ? entry.message.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []))
          : undefined,
      );
      return calls ?? [];
    },
    async finished(run) {
      if (!run.ref.unstored) return;
      // An unstored conversation is removed once its run has let go of the session.
      await run.handle?.result;
      await runtime.sessions.delete(run.ref.sessionId).catch(() => undefined);
    },
  };

  /**
   * The session `conversation` names, which the response continues from its leaf: one the caller may
   * run in, and not beside `previous_response_id` (as the Responses API has it).
   */
  async function conversationOf(
    named: CreateResponseBody["conversation"],
    withPrevious: boolean,
    principal: ReturnType<typeof principalOf>,
  ): Promise<string | undefined> {
    if (named === undefined || named === null) return undefined;
    if (withPrevious) {
      throw new ParamError("invalid_input", "Give previous_response_id or conversation, not both.", "conversation");
    }
    const sessionId = typeof named === "string" ? named : named.id;
    try {
      await runtime.access.session(principal, sessionId, "run", "POST /v1/responses");
    } catch (err) {
      if (!isArborError(err, "session_not_found") && !isArborError(err, "invalid_id")) throw err;
      throw new ParamError(
        "not_found",
        `Conversation ${JSON.stringify(sessionId)} is not a session of this server.`,
        "conversation",
      );
    }
    return sessionId;
  }

  /** The agent or model a request names: an agent from `GET /v1/models`, or `provider/model` for the default agent. */
  function modelOf(model: string | undefined): { agent?: string; model?: string; name: string } {
    const defaults = runtime.defaults();
    if (model === undefined) return { name: defaults.defaultAgent };
    if (model.includes("/")) return { model, name: model };
    if (!defaults.agents.some((a) => a.name === model)) {
      throw new ParamError(
        "invalid_model",
        `Model ${JSON.stringify(model)} is neither an agent of this server (GET /v1/models lists them) nor a provider/model.`,
        "model",
      );
    }
    return { agent: model, name: model };
  }

  /** The session's user message the run just wrote: the turn a new response names. */
  async function userEntryOf(sessionId: string): Promise<string> {
    const found = await nearestOnPath(store, sessionId, (entry) => (isUserTurn(entry) ? entry.id : undefined));
    if (found !== undefined) return found;
    throw new ApiError("internal_error", `Session ${sessionId} has no user message to name its response by.`);
  }

  const respond = async (run: ResponseRun, stream: boolean): Promise<Response> => {
    const events = responseEvents(run, end);
    if (stream) return sseOf(events, { [SESSION_HEADER]: run.ref.sessionId });
    const wire = await drain(events);
    return Response.json(wire.snapshot(), { headers: { [SESSION_HEADER]: run.ref.sessionId } });
  };

  const create = openAiRoute(
    {
      method: "POST",
      path: "/v1/responses",
      tag: "open-responses",
      scope: "run",
      summary: "Create a response (OpenAI Responses API)",
      description:
        "Runs an agent on the input and answers with a response object, or with the Responses API's server-sent events when `stream` is true. " +
        "`previous_response_id` continues from where that response ended (a branch when it is not the latest). Function tools are the " +
        "client's: the response ends with their `function_call` items and the next request sends `function_call_output` items. " +
        "Arbor's own tool calls are `mcp_call` items; a permission ask or a plan is an `mcp_approval_request`, answered by an `mcp_approval_response`.",
      body: CreateResponseBody,
      responses: {
        200: { description: "The response, or its events (text/event-stream) when `stream` is true.", schema: ResponseObject },
        ...ERRORS,
        409: { description: "The conversation has a run in progress (session_busy).", schema: OpenAiErrorBody },
      },
    },
    async (c, readBody) => {
      const body = parseParam(CreateResponseBody, await readBody());
      const input = readInput(body.input);
      const fns: ClientFunction[] = readTools(body.tools).map((fn) => ({
        name: fn.name,
        ...(fn.description ? { description: fn.description } : {}),
        ...(fn.parameters ? { parameters: fn.parameters } : {}),
      }));
      const prevId = body.previous_response_id ?? undefined;
      const prev = prevId === undefined ? undefined : await turnOf(prevId, "previous_response_id");
      const conversation = await conversationOf(body.conversation, prev !== undefined, principalOf(c));
      // The conversation a response continues must be one the caller may run in (another project's is not found).
      if (prev) await runtime.access.session(principalOf(c), prev.ref.sessionId, "run", "POST /v1/responses");
      if (body.store === false && ((prev && !prev.ref.unstored) || conversation !== undefined)) {
        throw new ParamError(
          "invalid_input",
          "store: false cannot continue a stored response: the conversation is one session, kept whole.",
          "store",
        );
      }
      const unstored = body.store === false || prev?.ref.unstored === true;
      const which = modelOf(body.model);
      const instructions = [body.instructions ?? "", ...input.system].filter((s) => s !== "").join("\n\n");
      const head = {
        model: which.name,
        createdAt: seconds(undefined),
        instructions: instructions === "" ? null : instructions,
        tools: body.tools ?? [],
        metadata: body.metadata ?? {},
        previousResponseId: prevId ?? null,
        store: !unstored,
      };
      const stream = body.stream === true;

      if (input.outputs.length > 0 || input.approvals.length > 0) {
        // Answers to what the previous response paused on: its run goes on, and this response reads on from there.
        const answered = await pauseAnswered(ctx, prev && prevId ? { id: prevId, ref: prev.ref } : undefined, input, paused);
        const takenUp = await answerPause(answered, input, paused, runs, principalOf(c));
        const { pause } = answered;
        const sessionId = pause.ref.sessionId;
        const ref: ResponseRef = { ...pause.ref, part: (pause.ref.part ?? 1) + 1 };
        // The run that paused goes on (its log read on from the pause), or one taken up here when it was gone.
        const reader = takenUp?.reader ?? (await runs.reader(sessionId, { after: pause.after }));
        const handle = takenUp?.handle ?? pause.handle;
        return respond({ ref, head, reader, clientTools: new Set(pause.clientTools), ...(handle ? { handle } : {}) }, stream);
      }

      if (input.prompt === undefined || input.prompt.trim() === "") {
        throw new ParamError(
          "invalid_input",
          "input needs a user message (a string, or a message item with role user).",
          "input",
        );
      }
      const fromEntryId = prev?.turn.at(-1)?.id;
      const turn: ChatTurn = {
        message: input.prompt,
        ...(prev ? { sessionId: prev.ref.sessionId } : conversation !== undefined ? { sessionId: conversation } : {}),
        ...(fromEntryId === undefined ? {} : { fromEntryId }),
        ...(which.agent === undefined ? {} : { agent: which.agent }),
        ...(which.model === undefined ? {} : { model: which.model }),
        ...(body.reasoning?.effort ? { thinking: body.reasoning.effort === "none" ? "off" : body.reasoning.effort } : {}),
        ...(body.max_turns === undefined ? {} : { maxTurns: body.max_turns }),
        ...(instructions === "" ? {} : { system: instructions }),
        ...(fns.length === 0 ? {} : { tools: fns.map((fn) => clientFunctionTool(fn, fns)) }),
        ...asPrincipal(c),
      };
      // A conversation with a run in progress answers 409 session_busy, as every front door does.
      await runs.admit(turn, { steer: false });
      const local = fns.length > 0 || instructions !== "" || unstored || body.max_turns !== undefined;
      const started = local ? await runs.start(turn) : await runs.startOrQueue(turn);
      const first = await readStep(started.sessionId, started.reader);
      const failed = first.events[0]?.event;
      if (failed?.type === "error") {
        // The run refused its input before writing anything (an unknown model, a tool name taken): the client's error.
        started.reader.close();
        const code = (failed.code ?? "invalid_input") as ApiErrorCode;
        if (statusFor(code) < 500) throw new ApiError(code, failed.content);
        throw new Error(failed.content);
      }
      const ref: ResponseRef = {
        sessionId: started.sessionId,
        kind: "turn",
        userEntryId: await userEntryOf(started.sessionId),
        ...(unstored ? { unstored: true as const } : {}),
      };
      return respond(
        {
          ref,
          head,
          reader: started.reader,
          first,
          clientTools: new Set(fns.map((f) => f.name)),
          ...(started.handle ? { handle: started.handle } : {}),
        },
        stream,
      );
    },
  );

  const retrieve = openAiRoute(
    {
      method: "GET",
      path: "/v1/responses/:id",
      tag: "open-responses",
      scope: "read",
      summary: "Read a stored response",
      description:
        "The turn a response id names as the session stores it now: its reasoning, messages and tool calls (a turn that paused for the client, in all its parts).",
      params: ResponseParams,
      responses: { 200: { description: "The response.", schema: ResponseObject }, ...ERRORS },
    },
    async (c) => {
      const { id } = parseParam(ResponseParams, c.req.param());
      const { ref, turn } = await turnOf(id, "id");
      await runtime.access.session(principalOf(c), ref.sessionId, "read", "GET /v1/responses/{id}");
      const meta = await store.getSession(ref.sessionId);
      const messages = turn.flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
      const sum = (pick: (t: NonNullable<(typeof messages)[number]["tokens"]>) => number) =>
        messages.reduce((n, m) => n + (m.tokens ? pick(m.tokens) : 0), 0);
      const usage = usageOf({
        input: sum((t) => t.input),
        output: sum((t) => t.output),
        reasoning: sum((t) => t.reasoning),
        cache_read: sum((t) => t.cacheRead),
        cache_write: sum((t) => t.cacheWrite),
      });
      return Response.json({
        id,
        object: "response",
        created_at: seconds(turn[0]?.timestamp),
        status: "completed",
        error: null,
        incomplete_details: null,
        instructions: null,
        metadata: {},
        model: messages.at(-1)?.model ?? meta?.agentId ?? "",
        output: outputOfTurn(turn),
        parallel_tool_calls: false,
        previous_response_id: null,
        store: true,
        tool_choice: "auto",
        tools: [],
        usage,
      });
    },
  );

  const compact = openAiRoute(
    {
      method: "POST",
      path: "/v1/responses/compact",
      tag: "open-responses",
      scope: "run",
      summary: "Compact the conversation a response ends",
      description:
        "Arbor's compaction of the response's session (its latest response only): a summary replaces the older messages. " +
        "The result's id is a response id: continue the compacted conversation with it as previous_response_id.",
      body: CompactBody,
      responses: {
        200: {
          description: "The compaction.",
          schema: z.looseObject({ id: z.string(), object: z.literal("response.compaction") }),
        },
        ...ERRORS,
      },
    },
    async (c, readBody) => {
      const body = parseParam(CompactBody, await readBody());
      if (body.input !== undefined && (typeof body.input === "string" ? body.input !== "" : body.input.length > 0)) {
        throw new ParamError(
          "invalid_input",
          "Arbor compacts the conversation it keeps: send previous_response_id and no input.",
          "input",
        );
      }
      const { ref, turn } = await turnOf(body.previous_response_id, "previous_response_id");
      await runtime.access.session(principalOf(c), ref.sessionId, "run", "POST /v1/responses/compact");
      const meta = await store.getSession(ref.sessionId);
      if (meta?.leafEntryId !== turn.at(-1)?.id) {
        throw new ParamError(
          "invalid_input",
          "Only the latest response of a conversation can be compacted; continue from this one first.",
          "previous_response_id",
        );
      }
      const which = body.model === undefined || !body.model.includes("/") ? {} : { model: body.model };
      const result = await runtime.sessions.compact(ref.sessionId, which);
      const id = responseId({ sessionId: ref.sessionId, kind: "entry", entryId: result.entryId });
      return Response.json({
        id,
        object: "response.compaction",
        created_at: seconds(undefined),
        output: [{ type: "compaction", id: `cmp_${result.entryId}`, encrypted_content: id }],
        usage: usageOf({
          input: result.usage.input,
          output: result.usage.output,
          reasoning: result.usage.reasoning,
          cache_read: result.usage.cacheRead,
          cache_write: result.usage.cacheWrite,
        }),
      });
    },
  );

  const models = openAiRoute(
    {
      method: "GET",
      path: "/v1/models",
      tag: "open-responses",
      scope: "read",
      summary: "The agents, as models",
      description: "Each agent a run may be started with, as a model id for POST /v1/responses.",
      responses: {
        200: {
          description: "The agents.",
          schema: z.object({
            object: z.literal("list"),
            data: z.array(z.object({ id: z.string(), object: z.literal("model"), created: z.number(), owned_by: z.string() })),
          }),
        },
      },
    },
    async () => {
      const { agents } = runtime.defaults();
      return Response.json({
        object: "list",
        data: agents.map((a) => ({ id: a.name, object: "model", created: 0, owned_by: "arbor" })),
      });
    },
  );

  return [create, retrieve, compact, models];
}
