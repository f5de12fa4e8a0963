import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { type McpReadDeps, mcpErrorOf, sessionToSubscribe } from "./resources.js";

/** Past any event id: a watch from here sends only what is logged from now on. */
const FROM_NOW = Number.MAX_SAFE_INTEGER;

/**
 * resources/subscribe for Arbor's session and trace resources: each subscribed URI is told
 * (notifications/resources/updated) whenever its session's event log gets an event (a message
 * added, a goal set, the run ending), whichever process drives the run, through the runtime's
 * trace watch. The subscription is checked like a read; it ends with unsubscribe or the MCP session.
 */
export function registerSubscriptions(server: McpServer, { runtime, principal }: McpReadDeps): void {
  const stops = new Map<string, () => void>();
  server.server.registerCapabilities({ resources: { subscribe: true } });

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const sessionId = sessionToSubscribe(uri);
    if (stops.has(uri)) return {};
    try {
      await runtime.access.session(principal, sessionId, "read", "Subscribing to a session");
      const stop = await runtime.watch.watch(sessionId, FROM_NOW, (message) => {
        if (message.event === "connected") return;
        // A client that went away cannot be told; its session's close ends the watch.
        server.server.sendResourceUpdated({ uri }).catch(() => {});
      });
      // Subscribed twice at once: keep one watch.
      if (stops.has(uri)) stop();
      else stops.set(uri, stop);
    } catch (err) {
      throw mcpErrorOf(err);
    }
    return {};
  });

  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    stops.get(request.params.uri)?.();
    stops.delete(request.params.uri);
    return {};
  });

  const previous = server.server.onclose;
  server.server.onclose = () => {
    for (const stop of stops.values()) stop();
    stops.clear();
    previous?.();
  };
}
