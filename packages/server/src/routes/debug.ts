import { ArborError } from "@arbor/core";
import { readDebugRecords } from "@arbor/core/events";
import { DebugQuery, DebugResponse } from "../cache-debug-schemas.js";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";
import { SessionParams } from "../schemas.js";

/** DebugMiddleware's records of a session (`debug_calls`), kept in its event log and deleted with it. */
export function debugRoutes({ store }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/debug",
        scope: "read",
        tag: "sessions",
        summary: "The session's debug records: tool and model calls of runs made with `debug`",
        params: SessionParams,
        query: DebugQuery,
        responses: {
          200: { description: "A page of records, oldest first.", schema: DebugResponse },
          400: "An id or a query parameter is not valid.",
          404: "No such session.",
        },
      },
      async ({ params, query }, c) => {
        if (!(await store.getSession(params.id)))
          throw new ArborError("session_not_found", `Session ${params.id} does not exist.`);
        const page = await readDebugRecords(store, params.id, {
          limit: query.limit,
          ...(query.after === undefined ? {} : { after: query.after }),
        });
        return c.json({
          session_id: params.id,
          records: page.records,
          ...(page.nextAfter === undefined ? {} : { next_after: page.nextAfter }),
        });
      },
    ),
  ];
}
