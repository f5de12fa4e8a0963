import { type Protocol, routesOnly } from "../protocol.js";
import { uiChatRoutes } from "./routes.js";

/** The AI SDK UI message stream a stock `useChat` reads, with asks as tool approvals. */
export const uiChat: Protocol = {
  name: "ui-chat",
  summary: "The AI SDK UI message stream for useChat (POST /api/ui/chat, GET /api/ui/chat/:id/stream).",
  mount: (ctx) => routesOnly(uiChatRoutes(ctx)),
};
