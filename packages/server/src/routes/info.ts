import { z } from "zod";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";

const InfoResponse = z.object({
  default_model: z
    .string()
    .nullable()
    .describe("`provider/model` a run gets when it names none (a session keeps the model it last used); null: none configured."),
  default_agent: z.string().describe("The agent a new session runs when the request names none."),
  agents: z
    .array(
      z.object({
        name: z.string(),
        description: z.string().optional(),
        model: z.string().optional().describe("The agent's own model, used before the default."),
      }),
    )
    .describe("The agents a chat may name (sub-agents and hidden agents are left out)."),
  providers: z
    .array(z.string())
    .describe("Providers Arbor knows: a session keeps the model its last answer recorded only when it names one of these."),
});

/** What a client should offer and show as defaults in its model and agent fields, so they match what runs will use. */
export function infoRoutes({ runtime }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/info",
        scope: "read",
        tag: "meta",
        summary: "The default model and the agents a chat may start",
        responses: { 200: { description: "The defaults.", schema: InfoResponse } },
      },
      (_input, c) => {
        const d = runtime.defaults();
        return c.json({
          default_model: d.model ?? null,
          default_agent: d.defaultAgent,
          agents: d.agents,
          providers: d.providers,
        });
      },
    ),
  ];
}
