import { readTimeline } from "@arbor/core/trace";
import { TimelineLaneSchema } from "@arbor/core/wire";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";
import { SessionParams } from "../schemas.js";

/** The run timeline (waterfall) of a session, with its sub-agents' lanes nested under their spans. */
export function timelineRoutes({ store }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/timeline",
        scope: "read",
        tag: "sessions",
        summary:
          "The session's model calls, tool calls (permission waits apart), compactions and sub-agents as spans on a time axis",
        params: SessionParams,
        responses: {
          200: {
            description: "The session's lane: spans in order of their start, times in ms since the epoch.",
            schema: TimelineLaneSchema,
          },
          400: "The id is not valid.",
          404: "No such session.",
        },
      },
      async ({ params }, c) => c.json(await readTimeline(store, params.id)),
    ),
  ];
}
