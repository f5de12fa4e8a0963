import type { AgentCapabilities, BaseEvent, RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";
import { ArborError, isArborError } from "@arbor/core";
import type { RunEventReader } from "@arbor/core/events";
import { z } from "zod";
import type { ServerContext } from "../../context.js";
import { ApiError } from "../../errors.js";
import { asPrincipal } from "../../http/principal.js";
import { defineRoute, type Route } from "../../http/route.js";
import { SERVER_VERSION } from "../../version.js";
import type { AskAnswer } from "../shared/asks.js";
import { askIdOf, askOf } from "../shared/asks.js";
import { readStep, toWire } from "../shared/run-output.js";
import { chatRouteResponses, ProtocolRuntime } from "../shared/runs.js";
import { type AgUiRunIds, AgUiWire, parseInterruptId } from "./events.js";
import { AgUiState } from "./state.js";

const STREAM =
  "AG-UI events as server-sent events (`data: {event}`): RUN_STARTED and a STATE_SNAPSHOT (`{goals, todos}`: the session's goal " +
  "tree and todo list), then TEXT_MESSAGE_*, REASONING_*, TOOL_CALL_* and TOOL_CALL_RESULT as the run goes with a STATE_DELTA " +
  "(JSON Patch) after each step that changed the state, a MESSAGES_SNAPSHOT of the session's conversation (ids = entry ids), and " +
  "RUN_FINISHED (outcome `success`, or `interrupt` when the run waits for a permission or a plan approval) or RUN_ERROR.";

/** Described loosely here: `RunAgentInputSchema` of `@ag-ui/core` checks the body in the handler, with its own messages. */
const AgUiBody = z.looseObject({ threadId: z.string(), runId: z.string() }).meta({
  description: "An AG-UI `RunAgentInput`.",
});

/** The text of the last user message: what Arbor runs; earlier messages are already in the session. */
function promptOf(input: RunAgentInput): string {
  const last = input.messages.findLast((m) => m.role === "user");
  if (!last) return "";
  const content = last.content;
  if (typeof content === "string") return content.trim();
  return content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n")
    .trim();
}

/** A resume entry as the runtime's answer to the ask its interrupt named; a malformed one is the client's error. */
function answerOf(entry: NonNullable<RunAgentInput["resume"]>[number]): { answer: AskAnswer; after: number } {
  const ref = parseInterruptId(entry.interruptId);
  if (!ref)
    throw new ApiError("invalid_input", `resume: ${JSON.stringify(entry.interruptId)} is not an interrupt this server sent.`);
  const payload = (entry.payload ?? {}) as Record<string, unknown>;
  if (ref.kind === "question") {
    if (entry.status === "cancelled")
      return { answer: { kind: "question", id: ref.id, answer: { dismissed: true } }, after: ref.after };
    const answers = payload.answers;
    if (!Array.isArray(answers) || answers.length === 0 || !answers.every((a) => typeof a === "string")) {
      throw new ApiError(
        "invalid_input",
        `resume ${entry.interruptId}: payload.answers must be a list of the chosen options or answer texts.`,
      );
    }
    return { answer: { kind: "question", id: ref.id, answer: { answers } }, after: ref.after };
  }
  if (ref.kind === "permission") {
    const reply = entry.status === "cancelled" ? "reject" : payload.reply;
    if (reply !== "once" && reply !== "always" && reply !== "reject") {
      throw new ApiError("invalid_input", `resume ${entry.interruptId}: payload.reply must be "once", "always" or "reject".`);
    }
    const message = typeof payload.message === "string" ? { message: payload.message } : {};
    return { answer: { kind: "permission", id: ref.id, reply, ...message }, after: ref.after };
  }
  const approved = entry.status === "cancelled" ? false : payload.approved;
  if (typeof approved !== "boolean") {
    throw new ApiError("invalid_input", `resume ${entry.interruptId}: payload.approved must be true or false.`);
  }
  const reason = typeof payload.reason === "string" ? { reason: payload.reason } : {};
  return { answer: { kind: "plan", planId: ref.id, approved, ...reason }, after: ref.after };
}

/**
 * The SSE response of one AG-UI run over `reader`: RUN_STARTED, the run's events, and RUN_FINISHED
 * or RUN_ERROR. A waiting ask ends the response (the run itself goes on waiting for the answer the
 * client's next run brings). Pull-based: a client that leaves stops this reader only, never the run.
 */
function agUiResponse(
  sessionId: string,
  ids: AgUiRunIds,
  reader: RunEventReader,
  accept: string | undefined,
  state: AgUiState,
): Response {
  const encoder = new EventEncoder(accept === undefined ? {} : { accept });
  const wire = new AgUiWire(ids);
  const text = new TextEncoder();
  let first = true;
  let finished = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let sent = 0;
      const send = (events: BaseEvent[]) => {
        for (const event of events) controller.enqueue(text.encode(encoder.encodeSSE(event)));
        sent += events.length;
      };
      if (first) {
        first = false;
        send([wire.started(), ...(await state.snapshot())]);
        return;
      }
      // A pull that sends nothing is not called again: read until an event maps to something (model calls map to nothing).
      while (!finished && sent === 0) {
        const step = await readStep(sessionId, reader);
        for (const e of step.events) {
          const ask = askOf(e.event);
          const last = ask !== undefined || e.event.type === "done" || e.event.type === "error";
          // A step's model call starts after the previous step's results and records are written: the state
          // that step left, as of the entry the call names (a summary call names none and changes nothing).
          if (e.event.type === "llm_start" && e.event.leaf_id !== undefined) {
            send(wire.interject(await state.delta(e.event.leaf_id)));
          }
          // The run's conversation goes before its last event, which closes the AG-UI run.
          if (last) send(wire.interject(await state.finish()));
          send(toWire(wire, e));
          if (last) {
            finished = true;
            send(
              wire.end(ask ? { kind: "waiting", ask } : { kind: "ended", status: e.event.type === "done" ? "done" : "error" }),
            );
            reader.close();
            controller.close();
            return;
          }
        }
        if (step.end) {
          finished = true;
          send(wire.interject(await state.finish()));
          send(wire.end(step.end));
          reader.close();
          controller.close();
        }
      }
    },
    cancel() {
      reader.close();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}

/** `POST /api/ag-ui`: an AG-UI agent over Arbor sessions (thread = session). */
export function agUiRoutes(ctx: ServerContext): Route[] {
  const { store } = ctx;
  const runs = new ProtocolRuntime(ctx);
  // A new thread's session is written by its run a moment after the stream starts: no path yet is an empty one.
  const stateOf = (sessionId: string) =>
    new AgUiState(() =>
      store.getActivePath(sessionId).catch((err: unknown) => {
        if (isArborError(err) && err.code === "session_not_found") return [];
        throw err;
      }),
    );
  const run = defineRoute(
    {
      method: "POST",
      path: "/api/ag-ui",
      scope: "run",
      tag: "chat",
      summary: "Run an AG-UI agent",
      description:
        "The endpoint an AG-UI `HttpAgent` posts `RunAgentInput` to. `threadId` is the Arbor session id (a new id starts a session " +
        "with it); the last user message is the prompt, earlier ones are the session's. `parentRunId`, when given, is the id of the " +
        "entry to continue from (a branch). A run that asks permission or a plan approval finishes with an `interrupt` outcome; " +
        "the next run's `resume` answers it and streams the rest of the Arbor run.",
      body: AgUiBody,
      responses: chatRouteResponses(
        { description: STREAM, schema: AgUiBody, contentType: "text/event-stream" },
        "Not a valid RunAgentInput, no user text to run, or a resume entry that answers no interrupt of this server.",
        "The thread (session) of a resume, or the parentRunId entry, does not exist.",
      ),
    },
    async ({ body }, c) => {
      const parsed = RunAgentInputSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? issue.path.join(".") : "body";
        throw new ApiError("invalid_input", `Not a valid AG-UI RunAgentInput: ${where}: ${issue?.message ?? "invalid"}.`);
      }
      const input = parsed.data as RunAgentInput;
      const ids: AgUiRunIds = { threadId: input.threadId, runId: input.runId };
      const sessionId = input.threadId;
      const by = asPrincipal(c);
      const accept = c.req.header("accept");

      if (input.resume !== undefined && input.resume.length > 0) {
        const answers = input.resume.map(answerOf);
        await runs.mayAnswerIn(sessionId, by.principal);
        // Read from the log before answering, so nothing the run does after the answer can be missed.
        const reader = await runs.reader(sessionId, { after: Math.min(...answers.map((a) => a.after)) });
        for (const { answer } of answers) {
          const answered = await runs.answer(answer, by.principal);
          if (!answered) {
            reader.close();
            throw new ApiError(
              "permission_not_found",
              `Interrupt ${askIdOf(answer)} waits for no answer: it was answered already or its run ended.`,
            );
          }
        }
        return agUiResponse(sessionId, ids, reader, accept, stateOf(sessionId));
      }

      const prompt = promptOf(input);
      if (prompt === "") throw new ApiError("invalid_input", "messages: the last user message has no text to run.");
      const exists = (await store.getSession(sessionId)) !== undefined;
      if (!exists && input.parentRunId !== undefined) {
        throw new ArborError("session_not_found", `parentRunId needs an existing thread: session ${sessionId} does not exist.`);
      }
      const named = exists ? { sessionId } : { newSessionId: sessionId };
      const from = input.parentRunId === undefined ? {} : { fromEntryId: input.parentRunId };
      // An AG-UI client names the agent to run in its forwarded props (GET /api/ag-ui/capabilities lists them).
      const agent = (input.forwardedProps as { agent?: unknown } | undefined)?.agent;
      const as = typeof agent === "string" ? { agent } : {};
      const begun = await runs.begin({ message: prompt, ...named, ...from, ...as, ...by }, { steer: false });
      if ("steered" in begun) throw new ArborError("session_busy", `Session ${sessionId} already has a run in progress.`);
      return agUiResponse(begun.started.sessionId, ids, begun.started.reader, accept, stateOf(begun.started.sessionId));
    },
  );
  const capabilities = defineRoute(
    {
      method: "GET",
      path: "/api/ag-ui/capabilities",
      scope: "read",
      tag: "chat",
      summary: "What the AG-UI agent supports",
      description:
        "AG-UI capability discovery: an `AgentCapabilities` object saying what `POST /api/ag-ui` streams (state snapshots and " +
        "deltas, reasoning, interrupts for approvals) and which agents a run may be started with (`forwardedProps.agent`).",
      responses: { 200: { description: "The capabilities.", schema: z.looseObject({}), contentType: "application/json" } },
    },
    (_input, c) => c.json(agUiCapabilities(ctx)),
  );
  return [run, capabilities];
}

/** The agent's capabilities as AG-UI 1.0 describes them, from what this server does and the runtime's agents. */
function agUiCapabilities(ctx: ServerContext): AgentCapabilities {
  const defaults = ctx.runtime.defaults();
  return {
    identity: {
      name: "Arbor",
      type: "arbor",
      description: "An Arbor agent runtime: a thread is a session.",
      version: SERVER_VERSION,
    },
    transport: { streaming: true, websocket: false, httpBinary: false, pushNotifications: false },
    tools: { supported: true, parallelCalls: true, clientProvided: false },
    state: { snapshots: true, deltas: true, memory: true, persistentState: true },
    multiAgent: {
      supported: true,
      delegation: true,
      handoffs: false,
      subagents: defaults.agents.map((a) => ({ name: a.name, description: a.description ?? `The ${a.name} agent.` })),
    },
    reasoning: { supported: true, streaming: true, encrypted: false },
    humanInTheLoop: { supported: true, approvals: true, interventions: true, feedback: false },
  };
}
