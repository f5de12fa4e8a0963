import { defineRoute, type Route } from "../http/route.js";
import { HealthResponse } from "../schemas.js";

/** Health (no auth) and the OpenAPI document, which is built on first request from every route. */
export function metaRoutes(document: () => Record<string, unknown>): Route[] {
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/health",
        tag: "meta",
        summary: "Liveness; needs no token",
        public: true,
        responses: { 200: { description: "The server is up.", schema: HealthResponse } },
      },
      (_input, c) => c.json({ status: "ok" as const }),
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/openapi.json",
        tag: "meta",
        summary: "This API as an OpenAPI 3.1 document, generated from the zod schemas",
        responses: { 200: { description: "The document." } },
      },
      (_input, c) => c.json(document()),
    ),
  ];
}
