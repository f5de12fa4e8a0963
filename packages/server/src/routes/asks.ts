import type { Runtime } from "@arbor/core";
import type { z } from "zod";
import { AnswerAskRequest, AnswerAskResponse, AskListResponse, AskParams, type PendingAskResponse } from "../ask-schemas.js";
import type { ServerContext } from "../context.js";
import { asPrincipal } from "../http/principal.js";
import type { Route } from "../http/route.js";
import { followRun } from "../streams/run-stream.js";
import { permissionToWire } from "../wire.js";
import { answerRoute, pendingListRoute } from "./pending.js";

type PendingAsk = Awaited<ReturnType<Runtime["asks"]["listPending"]>>[number];

function askToWire(ask: PendingAsk): z.output<typeof PendingAskResponse> {
  const common = { id: ask.id, session_id: ask.sessionId, created_at: ask.createdAt, expires_at: ask.expiresAt };
  switch (ask.kind) {
    case "permission":
      return { kind: "permission", ...common, permission: permissionToWire(ask.permission) };
    case "plan":
      return {
        kind: "plan",
        ...common,
        plan: { plan_id: ask.plan.planId, title: ask.plan.title, steps: ask.plan.steps.map((s) => ({ ...s, id: Number(s.id) })) },
      };
    case "question": {
      const { id: _, sessionId: __, callId, ...question } = ask.question;
      return { kind: "question", ...common, question: { ...question, ...(callId === undefined ? {} : { call_id: callId }) } };
    }
    case "mcp_login": {
      const { server, callId, url, message } = ask.mcpLogin;
      return {
        kind: "mcp_login",
        ...common,
        mcp_login: { server, ...(callId === undefined ? {} : { call_id: callId }), url, message },
      };
    }
    case "elicitation": {
      const e = ask.elicitation;
      const asked =
        e.mode === "url"
          ? { mode: e.mode, url: e.url, elicitation_id: e.elicitationId }
          : { mode: e.mode, requested_schema: e.requestedSchema as unknown as Record<string, unknown> };
      return {
        kind: "elicitation",
        ...common,
        elicitation: {
          server: e.server,
          ...(e.callId === undefined ? {} : { call_id: e.callId }),
          message: e.message,
          ...asked,
        },
      };
    }
  }
}

/** Every kind of ask over one pair of routes: list what runs wait on, answer any of it by id. */
export function askRoutes(ctx: ServerContext): Route[] {
  const { runtime } = ctx;
  return [
    pendingListRoute(
      ctx,
      {
        path: "/api/asks",
        summary:
          "Everything runs wait on a person for (permission asks, plans, questions, MCP elicitations and logins), oldest first",
        description: "Pending asks of every instance over the store.",
        schema: AskListResponse,
      },
      (id) => runtime.asks.listPending(id),
      (asks) => ({ asks: asks.map(askToWire) }),
    ),
    answerRoute(
      {
        path: "/api/asks/:id",
        summary: "Answer any ask by its id",
        description:
          "A question takes `answers` (its option labels, matched without regard to case, or free text) or `allow: false` to dismiss it; an MCP server's elicitation takes `content` (its form's fields) or `allow: false` to decline; an MCP login is finished by opening its URL (the callback answers it), or declined with `allow: false`; a permission ask is allowed once or rejected with `allow`, a plan approved or rejected. The run waiting on it, on any instance, goes on; a plan whose run is gone is carried on by a new run (`resumed_session`).",
        params: AskParams,
        body: AnswerAskRequest,
        schema: AnswerAskResponse,
        invalid: "Invalid id or body, or an answer the question does not take.",
        notFound: "ask_not_found: never asked, or its session was deleted.",
      },
      async ({ params, body }, c) => {
        const answered = await runtime.asks.answer(params.id, body.allow ?? true, {
          ...(body.answers === undefined ? {} : { answers: body.answers }),
          ...(body.content === undefined ? {} : { content: body.content }),
          ...(body.message === undefined ? {} : { message: body.message }),
          busy: "reject",
          ...asPrincipal(c),
        });
        if (answered.kind === "plan") {
          if (answered.result.run) followRun(ctx, answered.result.run);
          return c.json({
            id: params.id,
            kind: "plan" as const,
            session_id: answered.result.sessionId,
            resumed_session: answered.result.run?.sessionId ?? null,
          });
        }
        return c.json({ id: params.id, kind: answered.kind, session_id: answered.record.sessionId, resumed_session: null });
      },
    ),
  ];
}
