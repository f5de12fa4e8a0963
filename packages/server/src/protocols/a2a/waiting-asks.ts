import type { Part } from "@a2a-js/sdk";
import type { Runtime } from "@arbor/core";
import type { Principal } from "@arbor/core/store";
import type { RunEventOf } from "@arbor/core/wire";
import { type Ask, elicitationElsewhere, elicitationFields } from "../shared/asks.js";
import type { ProtocolRuntime } from "../shared/runs.js";
import { dataPart, textPart } from "./tasks.js";

type ElicitationEvent = RunEventOf<"elicitation_request">;
type PendingAsk = Awaited<ReturnType<Runtime["asks"]["listPending"]>>[number];

/**
 * An MCP server's elicitation (or login) as the `input-required` status says it: the sentence every
 * protocol says of it (what is asked and where to answer it, since an A2A reply cannot carry a
 * form to the tool call that waits), and the ask as data for a client that renders it.
 */
export function elicitationParts(event: ElicitationEvent): Part[] {
  return [
    textPart(elicitationElsewhere(event, "A2A")),
    dataPart({
      ask: "elicitation",
      askId: event.id,
      server: event.server,
      mode: event.mode,
      message: event.message,
      ...(event.mode === "form" ? { fields: elicitationFields(event), requestedSchema: event.requested_schema ?? {} } : {}),
      ...(event.url === undefined ? {} : { url: event.url }),
    }),
  ];
}

/** A stored elicitation or login ask as the run event that announced it; undefined for other asks. */
function eventOf(ask: PendingAsk): ElicitationEvent | undefined {
  const base = { type: "elicitation_request" as const, id: ask.id, session_id: ask.sessionId };
  if (ask.kind === "mcp_login") {
    const { server, callId, message, url } = ask.mcpLogin;
    return { ...base, server, message, mode: "login", url, ...(callId === undefined ? {} : { call_id: callId }) };
  }
  if (ask.kind !== "elicitation") return undefined;
  const e = ask.elicitation;
  return {
    ...base,
    server: e.server,
    message: e.message,
    mode: e.mode,
    ...(e.callId === undefined ? {} : { call_id: e.callId }),
    ...(e.mode === "form"
      ? { requested_schema: e.requestedSchema as unknown as Record<string, unknown> }
      : { url: e.url, elicitation_id: e.elicitationId }),
  };
}

/** The elicitation (or login) a task's run waits on, oldest first, from the store's asks. */
export async function waitingElicitation(runtime: Runtime, sessionId: string): Promise<ElicitationEvent | undefined> {
  for (const ask of await runtime.asks.listPending(sessionId)) {
    const event = eventOf(ask);
    if (event) return event;
  }
  return undefined;
}

/** Whether the elicitation is still waiting for its answer (a replayed one answered already is history). */
export async function isElicitationPending(runtime: Runtime, sessionId: string, id: string): Promise<boolean> {
  return (await runtime.asks.listPending(sessionId)).some((a) => a.id === id);
}

/** The ask (permission, question, plan) the session's run waits on, oldest first, that an A2A reply answers. */
export async function waitingAsk(runs: ProtocolRuntime, sessionId: string, principal?: Principal): Promise<Ask | undefined> {
  const { permissions, plans, questions } = await runs.pendingAll(sessionId, principal);
  const permission = permissions[0];
  if (permission) {
    return {
      kind: "permission",
      id: permission.id,
      event: {
        type: "permission_request",
        id: permission.id,
        permission: permission.request.permission,
        patterns: permission.request.patterns,
        session_id: sessionId,
      },
    } as Ask;
  }
  const question = questions[0];
  if (question) {
    const { id, question: text, header, options, multiple, custom, callId } = question;
    return {
      kind: "question",
      id,
      event: {
        type: "question_request",
        id,
        question: text,
        ...(header === undefined ? {} : { header }),
        ...(options === undefined ? {} : { options }),
        multiple: multiple ?? false,
        custom: options === undefined || custom !== false,
        ...(callId === undefined ? {} : { call_id: callId }),
        session_id: sessionId,
      },
    };
  }
  const plan = plans[0];
  if (plan)
    return {
      kind: "plan",
      planId: plan.planId,
      event: {
        type: "plan_approval_request",
        plan_id: plan.planId,
        title: plan.title,
        steps: plan.steps,
        session_id: sessionId,
      },
    } as Ask;
  return undefined;
}
