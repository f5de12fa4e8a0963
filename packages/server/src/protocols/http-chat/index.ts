import { type Protocol, routesOnly } from "../protocol.js";
import { chatRoutes } from "./routes.js";

/** `POST /api/chat` and the session stream: run events as server-sent events, resumable by event id. */
export const httpChat: Protocol = {
  name: "http-chat",
  summary: "Run events as server-sent events (POST /api/chat, GET /api/sessions/:id/stream), resumable by Last-Event-ID.",
  mount: (ctx) => routesOnly(chatRoutes(ctx)),
};
