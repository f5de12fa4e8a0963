import type { RunExtension } from "../loop/run-context.js";
import type { RunEventInput } from "../model/run-events.js";
import { runKey } from "../tools/run-values.js";
import type { ElicitationAnswer, ElicitationListener, PendingElicitation } from "./elicitations.js";
import type { McpLoginListener } from "./login-asks.js";

/** Where an MCP tool of a run finds who to tell of its server's elicitations: the run, as events. */
export const elicitationEventsKey = runKey<ElicitationListener>("mcp-elicitations");

/** The `elicitation_request` event announcing a pending elicitation, with its form or URL. */
export function elicitationRequestEvent(pending: PendingElicitation): RunEventInput {
  return {
    type: "elicitation_request",
    id: pending.id,
    server: pending.server,
    ...(pending.callId !== undefined ? { call_id: pending.callId } : {}),
    message: pending.message,
    mode: pending.mode,
    ...(pending.mode === "form"
      ? { requested_schema: pending.requestedSchema as unknown as Record<string, unknown> }
      : { url: pending.url, elicitation_id: pending.elicitationId }),
  };
}

/** The `elicitation_answered` event: how the elicitation ended (never the content given, which stays in its ask). */
export function elicitationAnsweredEvent(pending: PendingElicitation, answer: ElicitationAnswer): RunEventInput {
  return {
    type: "elicitation_answered",
    id: pending.id,
    server: pending.server,
    ...(pending.callId !== undefined ? { call_id: pending.callId } : {}),
    action: answer.action,
  };
}

/**
 * A login an MCP server wants, announced on a run's stream like a URL elicitation (mode `login`: the
 * page is the authorization server's, and the browser's return to Arbor's callback answers it), and
 * how it ended. Used for a tool call's login and for one asked while a run lists its servers' tools.
 */
export function loginEventsTo(emit: (event: RunEventInput) => void): McpLoginListener {
  return {
    loginAsked: (login) =>
      emit({
        type: "elicitation_request",
        id: login.id,
        server: login.server,
        ...(login.callId !== undefined ? { call_id: login.callId } : {}),
        message: login.message,
        mode: "login",
        url: login.url,
      }),
    loginEnded: (login, action) =>
      emit({
        type: "elicitation_answered",
        id: login.id,
        server: login.server,
        ...(login.callId !== undefined ? { call_id: login.callId } : {}),
        action,
      }),
  };
}

/**
 * MCP elicitations as run events: a server's elicitation during one of the run's tool calls is
 * announced on the run's stream when its ask is recorded, and again when it ends, so a client
 * following the run shows the form at once instead of reading the asks over and over.
 */
export function elicitationEventsExtension(): RunExtension {
  return {
    name: "mcp-elicitations",
    start(ctx) {
      ctx.values.set(elicitationEventsKey, {
        asked: (pending) => ctx.emit(elicitationRequestEvent(pending)),
        ended: (pending, answer) => ctx.emit(elicitationAnsweredEvent(pending, answer)),
        ...loginEventsTo((event) => ctx.emit(event)),
      });
    },
  };
}
