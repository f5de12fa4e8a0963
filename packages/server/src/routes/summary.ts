import { runUsageOnWire } from "@arbor/core/wire";
import { z } from "zod";
import type { ServerContext } from "../context.js";
import { asPrincipal } from "../http/principal.js";
import { defineRoute, type Route } from "../http/route.js";
import { HelperUsageResponse, SessionParams } from "../schemas.js";

export const SummaryRequest = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("The model that writes it (`provider/model`); default pool.summary, else the session's."),
});

export const SummaryResponse = z.object({
  session_id: z.string(),
  summary: z.string().describe("What the session did, in a few lines, for people (not the model's compaction summary)."),
  model: z.string().describe("`provider/model` that wrote it."),
  usage: HelperUsageResponse,
  cost: z.number().nonnegative().nullable().describe("Dollars; null when the model has no known price."),
});

/** The `summary` helper over HTTP: `runtime.sessions.summary`, which writes nothing. */
export function summaryRoutes({ runtime }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/summary",
        // A model call paid for by the caller: more than reading.
        scope: "run",
        tag: "sessions",
        summary: "Summarize the session now, for people (stored nowhere)",
        description:
          "The `summary` helper model (pool.summary, else the session's model) reads the active path and writes what was asked, done, found and left. Nothing is written to the session, so a running session can be summarized.",
        params: SessionParams,
        body: SummaryRequest,
        responses: {
          200: { description: "The summary.", schema: SummaryResponse },
          400: "An id or the body is not valid, or the session has no messages yet.",
          404: "No such session.",
          502: "The summary model failed.",
        },
      },
      async ({ params, body }, c) => {
        const r = await runtime.sessions.summary(params.id, {
          ...asPrincipal(c),
          ...(body.model === undefined ? {} : { model: body.model }),
        });
        return c.json({
          session_id: r.sessionId,
          summary: r.summary,
          model: r.model,
          usage: runUsageOnWire(r.usage),
          cost: r.costKnown === false ? null : r.cost,
        });
      },
    ),
  ];
}
