import type { ClusterRelay } from "../cluster/cluster-node.js";
import { defineRoute, type Route } from "../http/route.js";
import { HealthResponse } from "../schemas.js";

/** Health (no auth) and the OpenAPI document, which is built on first request from every route. */
export function metaRoutes(document: () => Record<string, unknown>, cluster?: ClusterRelay): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/health",
        tag: "meta",
        summary: "Liveness; needs no token",
        public: true,
        responses: {
          200: { description: "The server is up (and, in a cluster, takes work).", schema: HealthResponse },
          503: {
            description: "In a cluster: this instance takes no new work (shutting down, or not hearing the others).",
            schema: HealthResponse,
          },
        },
      },
      (_input, c) => {
        if (!cluster) return c.json({ status: "ok" as const });
        const h = cluster.health();
        // A load balancer stops sending requests to an instance that answers 503.
        return h.accepting ? c.json({ status: "ok" as const, ...h }) : c.json({ status: "unavailable" as const, ...h }, 503);
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/openapi.json",
        scope: "read",
        tag: "meta",
        summary: "This API as an OpenAPI 3.1 document, generated from the zod schemas",
        responses: { 200: { description: "The document." } },
      },
      (_input, c) => c.json(document()),
    ),
  ];
}
