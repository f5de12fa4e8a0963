import { ArborError } from "@arbor/core";
import { WatchMessageSchema } from "@arbor/core/wire";
import { upgradeWebSocket } from "@hono/node-server";
import type { WebSocket } from "ws";
import type { ServerContext } from "../context.js";
import { ApiError, safeErrorMessage } from "../errors.js";
import { defineRoute, type Route } from "../http/route.js";
import { SessionParams, WatchQuery } from "../schemas.js";

/** A watcher this far behind (bytes queued on its socket) is cut off; it reconnects with its last id. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** The backlog is sent a page at a time while less than this is queued on the socket. */
const LOW_WATER_BYTES = 64 * 1024;

/** A WebSocket close reason holds at most 123 bytes of UTF-8; longer ones make `close` throw. */
function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let cut = text;
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return `${cut}…`;
}

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
        scope: "read",
        tag: "traces",
        summary: "Watch a trace over a WebSocket",
        description:
          "Upgrade to a WebSocket. The server sends JSON text messages: `connected` (trace_id, current_event_id, first_event_id, goal_tree), " +
          "then every logged event after since_event_id exactly once, oldest first, then live ones (whichever process drives the run): " +
          "trace_started, message_added, goal_added, goal_updated, " +
          "sub_trace_started, sub_trace_completed (a sub-trace's events reach its parents' watchers), trace_completed. Each logged event has " +
          "an event_id, strictly increasing per trace; reconnect with the last one seen. Browsers, which cannot set headers on a WebSocket, " +
          "may pass the token as `access_token`.",
        params: SessionParams,
        query: WatchQuery,
        responses: {
          101: { description: "Switching to the WebSocket; each message is one of these.", schema: WatchMessageSchema },
          400: "Invalid id or since_event_id.",
          404: "No such trace.",
          426: "Not a WebSocket upgrade request.",
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
        const left = new AbortController();
        return upgradeWebSocket(c, {
          onOpen(_event, ws) {
            const socket = ws.raw as WebSocket;
            const cutOff = (code: number, reason: string) => {
              left.abort();
              stop?.();
              ws.close(code, reason);
            };
            // Backpressure for the backlog: between pages the hub waits until what is queued on
            // the socket is below LOW_WATER_BYTES (ws calls back as each message reaches the OS).
            let drained: (() => void) | undefined;
            const onSent = () => {
              if (drained && socket.bufferedAmount < LOW_WATER_BYTES) {
                drained();
                drained = undefined;
              }
            };
            const drain = () =>
              new Promise<void>((resolve) => {
                if (left.signal.aborted || socket.bufferedAmount < LOW_WATER_BYTES) resolve();
                else drained = resolve;
              });
            left.signal.addEventListener("abort", () => drained?.(), { once: true });
            const send = (message: object) => {
              if (left.signal.aborted) return;
              if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
                cutOff(1013, "Too far behind: reconnect with since_event_id set to the last event_id received.");
                return;
              }
              socket.send(toJson(message), onSent);
            };
            watch.watch(params.id, query.since_event_id, send, { drain, signal: left.signal }).then(
              (unsubscribe) => {
                if (left.signal.aborted) unsubscribe();
                else stop = unsubscribe;
              },
              (err: unknown) => cutOff(1011, closeReason(safeErrorMessage(err))),
            );
          },
          onClose() {
            left.abort();
            stop?.();
          },
        });
      },
    ),
  ];
}
