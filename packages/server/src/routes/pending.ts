import { ArborError } from "@arbor/core";
import type { Context } from "hono";
import type { z } from "zod";
import type { ServerContext } from "../context.js";
import { principalOf } from "../http/principal.js";
import { defineRoute, type Route, type RouteHandler } from "../http/route.js";
import { PendingQuery } from "../schemas.js";

/**
 * What runs wait on that the caller may see: in the session named (which must exist, or the answer
 * is a 404 rather than an empty list), else in every session.
 */
async function visiblePending<T>(
  { runtime, store }: ServerContext,
  c: Context,
  sessionId: string | undefined,
  list: (sessionId: string | undefined) => Promise<T[]>,
  sessionOf: (item: T) => string,
): Promise<T[]> {
  if (sessionId !== undefined && !(await store.getSession(sessionId))) {
    throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
  }
  return runtime.access.visible(principalOf(c), await list(sessionId), sessionOf);
}

export interface PendingListSpec {
  path: string;
  summary: string;
  /** The 200 answer: its description and body schema. */
  description: string;
  schema: z.ZodType;
}

/**
 * `GET` a list of what runs wait on, one session's or all, as far as the caller may see: the asks
 * list and the permissions list differ only in what they list and how each item is written.
 */
export function pendingListRoute<T extends { sessionId: string }>(
  ctx: ServerContext,
  spec: PendingListSpec,
  list: (sessionId: string | undefined) => Promise<T[]>,
  body: (items: T[]) => Record<string, unknown>,
): Route {
  return defineRoute(
    {
      method: "GET",
      path: spec.path,
      scope: "read",
      tag: "approvals",
      summary: spec.summary,
      query: PendingQuery,
      responses: {
        200: { description: spec.description, schema: spec.schema },
        400: "session_id is not valid.",
        404: "No such session.",
      },
    },
    async ({ query }, c) => c.json(body(await visiblePending(ctx, c, query.session_id, list, (item) => item.sessionId))),
  );
}

export interface AnswerSpec<P extends z.ZodType, B extends z.ZodType> {
  path: string;
  summary: string;
  description: string;
  params: P;
  body: B;
  /** The 200 body. */
  schema: z.ZodType;
  /** What the 400 and 404 answers mean here. */
  invalid: string;
  notFound: string;
}

/**
 * `POST` an answer to an ask by its id. Every ask takes one answer, and none once it expired, so
 * the 409 and 410 read the same on every route that answers one.
 */
export function answerRoute<P extends z.ZodType, B extends z.ZodType>(
  spec: AnswerSpec<P, B>,
  handler: RouteHandler<P, undefined, B>,
): Route {
  return defineRoute(
    {
      method: "POST",
      path: spec.path,
      scope: "run",
      tag: "approvals",
      summary: spec.summary,
      description: spec.description,
      params: spec.params,
      body: spec.body,
      responses: {
        200: { description: "The ask was answered.", schema: spec.schema },
        400: spec.invalid,
        404: spec.notFound,
        409: "ask_already_answered: the ask has its one answer already; nothing changed.",
        410: "ask_expired: the ask expired unanswered and its run was refused.",
      },
    },
    handler,
  );
}
