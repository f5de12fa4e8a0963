import type { RunExtension } from "../loop/run-context.js";
import type { RunEventInput } from "../model/run-events.js";
import { runKey } from "../tools/run-values.js";
import type { ElicitationAnswer, ElicitationListener, PendingElicitation } from "./elicitations.js";
import type { McpLoginListener, PendingMcpLogin } from "./login-asks.js";

/** Where an MCP tool of a run finds who to tell of its server's elicitations: the run, as events. */
export const elicitationEventsKey = runKey<ElicitationListener>("mcp-elicitations");

/** An ask a run announces: a server's elicitation (a form or a URL), or a login the server wants. */
export type AnnouncedAsk = PendingElicitation | (PendingMcpLogin & { mode: "login" });

/** What both events of an ask name: the ask to answer, its server, and the tool call it holds up. */
function askOf(ask: Pick<PendingMcpLogin, "id" | "server" | "callId">) {
  return { id: ask.id, server: ask.server, ...(ask.callId !== undefined ? { call_id: ask.callId } : {}) };
}

/** The `elicitation_request` event announcing a pending ask, with its form, its URL or its login page. */
export function elicitationRequestEvent(pending: AnnouncedAsk): RunEventInput {
  const head = { type: "elicitation_request", ...askOf(pending), message: pending.message } as const;
  switch (pending.mode) {
    case "form":
      return { ...head, mode: "form", requested_schema: pending.requestedSchema as unknown as Record<string, unknown> };
    case "url":
      return { ...head, mode: "url", url: pending.url, elicitation_id: pending.elicitationId };
    case "login":
      return { ...head, mode: "login", url: pending.url };
  }
}

/** The `elicitation_answered` event: how the ask ended (never the content given, which stays in its ask). */
export function elicitationAnsweredEvent(pending: AnnouncedAsk, answer: { action: ElicitationAnswer["action"] }): RunEventInput {
  return { type: "elicitation_answered", ...askOf(pending), action: answer.action };
}

/**
 * A login an MCP server wants, announced on a run's stream like a URL elicitation (mode `login`: the
 * page is the authorization server's, and the browser's return to Arbor's callback answers it), and
 * how it ended. Used for a tool call's login and for one asked while a run lists its servers' tools.
 */
export function loginEventsTo(emit: (event: RunEventInput) => void): McpLoginListener {
  return {
    loginAsked: (login) => emit(elicitationRequestEvent({ ...login, mode: "login" })),
    loginEnded: (login, action) => emit(elicitationAnsweredEvent({ ...login, mode: "login" }, { action })),
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
