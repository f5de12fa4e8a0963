import { ArborError, WatchMessageSchema } from "@arbor/core";
import { upgradeWebSocket, type WebSocketLike } from "@hono/node-server";
import type { ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { defineRoute, type Route } from "../http/route.js";
import { ErrorResponse, SessionParams, WatchQuery } from "../schemas.js";

/** A watcher this far behind (bytes queued on its socket) is cut off; it reconnects with its last id. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export function watchRoutes({ store, watch }: ServerContext): Route[] {
  // Every watcher of a trace is handed the same event object: serialize it once for all of them.
  const serialized = new WeakMap<object, string>();
  const toJson = (message: object): string => {
    let json = serialized.get(message);
    if (json === undefined) {
      json = JSON.stringify(message);
      serialized.set(message, json);
    }
    return json;
  };
  return [
    defineRoute(
      {
        method: "GET",
        path: "/api/traces/:id/watch",
        tag: "traces",
        summary: "Watch a trace over a WebSocket (seed 000)",
        description:
          "Upgrade to a WebSocket. The server sends JSON text messages: `connected` (trace_id, current_event_id, first_event_id, goal_tree), " +
          "then every logged event after since_event_id exactly once, oldest first, then live ones: message_added, goal_added, goal_updated, " +
          "sub_trace_started, sub_trace_completed (a sub-trace's events reach its parents' watchers), trace_completed. Each logged event has " +
          "an event_id, strictly increasing per trace; reconnect with the last one seen. Browsers, which cannot set headers on a WebSocket, " +
          "may pass the token as `access_token`.",
        params: SessionParams,
        query: WatchQuery,
        responses: {
          101: { description: "Switching to the WebSocket; each message is one of these.", schema: WatchMessageSchema },
          400: { description: "Invalid id or since_event_id.", schema: ErrorResponse },
          404: { description: "No such trace.", schema: ErrorResponse },
          426: { description: "Not a WebSocket upgrade request.", schema: ErrorResponse },
        },
      },
      async ({ params, query }, c) => {
        if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
          throw new ApiError(
            "upgrade_required",
            "This route is a WebSocket: connect with ws://…/api/traces/:id/watch?since_event_id=N.",
          );
        }
        if (!(await store.getSession(params.id))) throw new ArborError("session_not_found", `Trace ${params.id} does not exist.`);
        let stop: (() => void) | undefined;
        let closed = false;
        return upgradeWebSocket(c, {
          onOpen(_event, ws) {
            const socket = ws.raw as WebSocketLike & { bufferedAmount?: number };
            const send = (message: object) => {
              if (closed) return;
              if ((socket.bufferedAmount ?? 0) > MAX_BUFFERED_BYTES) {
                closed = true;
                stop?.();
                ws.close(1013, "Too far behind: reconnect with since_event_id set to the last event_id received.");
                return;
              }
              ws.send(toJson(message));
            };
            watch.watch(params.id, query.since_event_id, send).then(
              (unsubscribe) => {
                if (closed) unsubscribe();
                else stop = unsubscribe;
              },
              (err: unknown) => {
                closed = true;
                ws.close(1011, err instanceof Error ? err.message.slice(0, 120) : "watch failed");
              },
            );
          },
          onClose() {
            closed = true;
            stop?.();
          },
        });
      },
    ),
  ];
}
