import { isArborError } from "@arbor/core";
import type { ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { asPrincipal } from "../http/principal.js";
import { defineRoute, type Route } from "../http/route.js";
import {
  ApprovalListResponse,
  ApprovalParams,
  ApprovalsQuery,
  ListedApprovalResponse,
  PermissionListResponse,
  PermissionParams,
  PermissionReplyRequest,
  PermissionReplyResponse,
} from "../schemas.js";
import { permissionToWire } from "../wire.js";
import { answerRoute, pendingListRoute } from "./pending.js";

export function permissionRoutes(ctx: ServerContext): Route[] {
  const { runtime } = ctx;
  return [
    pendingListRoute(
      ctx,
      {
        path: "/api/permissions",
        summary: "Permission asks waiting for an answer, oldest first",
        description: "Pending asks.",
        schema: PermissionListResponse,
      },
      (id) => runtime.asks.listPermissions(id),
      (asks) => ({ permissions: asks.map(permissionToWire) }),
    ),
    answerRoute(
      {
        path: "/api/permissions/:id",
        summary: "Answer a permission ask",
        description:
          "`once` allows this call; `always` also approves, for this agent, exactly what the ask showed (its `always` patterns, else its `patterns`) in `scope` (default `session`); `reject` refuses (the model reads `message`).",
        params: PermissionParams,
        body: PermissionReplyRequest,
        schema: PermissionReplyResponse,
        invalid: "Invalid id or body.",
        notFound: "No ask with that id (never asked, or its session was deleted).",
      },
      async ({ params, body }, c) => {
        // The ask is a record in the store: whichever instance's run waits on it takes the answer from there.
        try {
          await runtime.asks.answerPermission(params.id, body.reply, {
            ...(body.message === undefined ? {} : { message: body.message }),
            ...(body.scope === undefined ? {} : { scope: body.scope }),
            ...asPrincipal(c),
          });
        } catch (err) {
          if (!isArborError(err, "ask_not_found")) throw err;
          throw new ApiError(
            "permission_not_found",
            `No permission ask ${params.id} exists: it never did, or its session was deleted. GET /api/permissions lists the waiting ones.`,
          );
        }
        return c.json({ id: params.id, reply: body.reply });
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/approvals",
        scope: "read",
        tag: "approvals",
        summary: "\"Always\" approvals in force: a session's, its workspace's and the global ones",
        description:
          "Without session_id: the server's workspace (`--cwd`) and the global ones. Project approvals live in `<workspace>/.arbor/approvals.json`, global ones in `$ARBOR_HOME/approvals.json`.",
        query: ApprovalsQuery,
        responses: {
          200: { description: "Approvals, session scope first.", schema: ApprovalListResponse },
          400: "session_id is not valid.",
          404: "No such session.",
        },
      },
      async ({ query }, c) => c.json({ approvals: await runtime.asks.listAllApprovals(query.session_id) }),
    ),
    defineRoute(
      {
        method: "DELETE",
        path: "/api/approvals/:id",
        scope: "admin",
        tag: "approvals",
        summary: "Revoke an approval",
        description:
          "A session's approval needs its session_id (it is withdrawn from the session's leaf on, after a run in progress); a project or global one is removed from its file.",
        params: ApprovalParams,
        query: ApprovalsQuery,
        responses: {
          200: { description: "The approval revoked.", schema: ListedApprovalResponse },
          400: "Invalid id or session_id.",
          404: "No such session, or no approval with that id in force there.",
        },
      },
      async ({ params, query }, c) => c.json(await runtime.asks.revokeApprovalById(params.id, query.session_id, asPrincipal(c))),
    ),
  ];
}
