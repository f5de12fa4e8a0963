import type { Protocol } from "../protocol.js";
import { PausedResponses } from "./responder.js";
import { responsesRoutes } from "./routes.js";

/** The OpenAI Responses API (`/v1/responses`, `/v1/models`): the official `openai` clients work against it unchanged. */
export const openResponses: Protocol = {
  name: "open-responses",
  summary: "The OpenAI Responses API (POST /v1/responses, GET /v1/responses/:id, POST /v1/responses/compact, GET /v1/models).",
  mount(ctx) {
    // Pauses this instance made, for an exact read-on point; the store keeps what any instance needs (see paused-answers.ts).
    const paused = new PausedResponses();
    return {
      routes: responsesRoutes(ctx, paused),
      endpoints: [],
      close: async () => paused.clear(),
    };
  },
};
