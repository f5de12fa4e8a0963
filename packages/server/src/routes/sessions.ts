import { ArborError, EntrySchema, SessionMetaSchema, SnapshotSchema } from "@arbor/core";
import type { ServerContext } from "../context.js";
import { asPrincipal, principalOf } from "../http/principal.js";
import { defineRoute, type Route } from "../http/route.js";
import {
  ApprovalListResponse,
  CompactRequest,
  CompactResponse,
  CreateSessionRequest,
  EntryRequest,
  LabelRequest,
  LeafRequest,
  ListSessionsQuery,
  RevokeApprovalRequest,
  RevokeApprovalResponse,
  SessionPageResponse,
  SessionParams,
} from "../schemas.js";
import { compactResultToWire, listSessionsFromWire, sessionInitFromWire, sessionPageToWire } from "../wire.js";

const notFound = "No such session (or entry).";
const badId = "An id or the body is not valid.";
const busy = "session_busy, naming the driver: the session has a run in progress; wait for it or abort it.";
/** HTTP answers at once: an edit of a session that has a driver is refused (409), never left waiting. */
const now = { busy: "reject" } as const;

export function sessionRoutes({ runtime, store }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions",
        scope: "read",
        tag: "sessions",
        summary: "List sessions, newest first",
        query: ListSessionsQuery,
        responses: { 200: { description: "One page.", schema: SessionPageResponse }, 400: badId },
      },
      async ({ query }, c) =>
        c.json(sessionPageToWire(await runtime.access.listSessions(principalOf(c), listSessionsFromWire(query)))),
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions",
        scope: "run",
        tag: "sessions",
        summary: "Create a session",
        body: CreateSessionRequest,
        responses: {
          201: { description: "The new session.", schema: SessionMetaSchema },
          400: badId,
          409: "A session with that id exists.",
        },
      },
      async ({ body }, c) => c.json(await runtime.sessions.create(sessionInitFromWire(body), asPrincipal(c)), 201),
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id",
        scope: "read",
        tag: "sessions",
        summary: "The session's snapshot: its whole entry tree in one read",
        params: SessionParams,
        responses: { 200: { description: "Snapshot.", schema: SnapshotSchema }, 400: badId, 404: notFound },
      },
      async ({ params }, c) => c.json(await store.getSnapshot(params.id)),
    ),
    defineRoute(
      {
        method: "DELETE",
        path: "/api/sessions/:id",
        scope: "admin",
        tag: "sessions",
        summary: "Delete a session and its sub-sessions",
        params: SessionParams,
        responses: { 204: { description: "Deleted." }, 400: badId, 404: notFound, 409: busy },
      },
      async ({ params }, c) => {
        await runtime.sessions.delete(params.id, now);
        return c.body(null, 204);
      },
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/leaf",
        scope: "run",
        tag: "sessions",
        summary: "Switch branch: move the leaf to an entry, optionally summarizing the branch left",
        description:
          "With `summarize`, the compaction model summarizes the branch being left (or, with `from_entry_id`, the branch ending at that entry: a bring-back of its conclusions) and a `branch_summary` entry is appended under the target, becoming the leaf; the model sees it when the session continues there. A failure moves nothing.",
        params: SessionParams,
        body: LeafRequest,
        responses: {
          200: { description: "The session after the move.", schema: SessionMetaSchema },
          400: badId,
          404: notFound,
          409: busy,
          502: "The summarizing model failed; nothing moved.",
        },
      },
      async ({ params, body }, c) => {
        const options = body.summarize
          ? {
              ...now,
              summarize: true,
              ...(body.focus === undefined ? {} : { focus: body.focus }),
              ...(body.from_entry_id === undefined ? {} : { fromEntryId: body.from_entry_id }),
            }
          : now;
        await runtime.sessions.switchLeaf(params.id, body.entry_id, options);
        const meta = await store.getSession(params.id);
        if (!meta) throw new ArborError("session_not_found", `Session ${params.id} was deleted during the move.`);
        return c.json(meta);
      },
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/compact",
        scope: "run",
        tag: "sessions",
        summary: "Compact now: summarize the history, keeping a recent tail verbatim",
        description:
          "Appends a `compaction` entry (the new leaf) written by the compaction model; the model sees the summary in place of the history it replaces. The entries themselves stay in the tree.",
        params: SessionParams,
        body: CompactRequest,
        responses: {
          200: { description: "What the compaction did.", schema: CompactResponse },
          400: badId,
          404: notFound,
          409: "A run is in progress, or there is nothing to summarize.",
          502: "The summarizing model failed; nothing was written.",
        },
      },
      async ({ params, body }, c) => {
        const result = await runtime.sessions.compact(params.id, body.focus === undefined ? now : { ...now, focus: body.focus });
        return c.json(compactResultToWire(result));
      },
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/fork",
        scope: "run",
        tag: "sessions",
        summary: "Fork: a new session holding the path root → entry",
        params: SessionParams,
        body: EntryRequest,
        responses: { 201: { description: "The new session.", schema: SessionMetaSchema }, 400: badId, 404: notFound },
      },
      async ({ params, body }, c) => c.json(await runtime.sessions.fork(params.id, body.entry_id, asPrincipal(c)), 201),
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/labels",
        scope: "run",
        tag: "sessions",
        summary: "Set or clear (label: null) the label of an entry",
        params: SessionParams,
        body: LabelRequest,
        responses: { 201: { description: "The label entry.", schema: EntrySchema }, 400: badId, 404: notFound, 409: busy },
      },
      async ({ params, body }, c) => {
        return c.json(await runtime.sessions.label(params.id, body.entry_id, body.label ?? undefined, now), 201);
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/approvals",
        scope: "read",
        tag: "approvals",
        summary: '"Always" approvals in force at the leaf',
        params: SessionParams,
        responses: { 200: { description: "Approvals.", schema: ApprovalListResponse }, 400: badId, 404: notFound },
      },
      async ({ params }, c) => c.json({ approvals: await runtime.asks.approvals(params.id) }),
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/approvals/revoke",
        scope: "admin",
        tag: "approvals",
        summary: "Withdraw an approval from the leaf on",
        description: "Waits for a run in progress to finish, so the revocation lands between runs.",
        params: SessionParams,
        body: RevokeApprovalRequest,
        responses: {
          200: { description: "Whether it was in force.", schema: RevokeApprovalResponse },
          400: badId,
          404: notFound,
        },
      },
      async ({ params, body }, c) => c.json({ revoked: await runtime.asks.revokeApproval(params.id, body) }),
    ),
  ];
}
