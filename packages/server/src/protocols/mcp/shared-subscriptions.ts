import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpSubscriptionBook } from "../../cluster/mcp-subscriptions.js";
import { type McpReadDeps, mcpErrorOf, sessionOfUri, sessionToSubscribe } from "./resources.js";

/**
 * resources/subscribe on a cluster's stateless `/mcp`, where no instance keeps anything of a client
 * between requests: the subscription is kept in the cluster's database (`book`), under the client's
 * Mcp-Session-Id, from the event its session's log had reached. The instance holding the client's
 * GET stream sends the notifications ({@link followSubscriptions}), whichever instance the subscribe
 * went to.
 */
export function registerSharedSubscriptions(
  server: McpServer,
  { runtime, store, principal }: McpReadDeps,
  client: string | undefined,
  book: McpSubscriptionBook,
): void {
  server.server.registerCapabilities({ resources: { subscribe: true } });

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const sessionId = sessionToSubscribe(uri);
    if (client === undefined) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        "Subscribing needs the Mcp-Session-Id header this /mcp's initialize response set: it names the client whose GET stream is told of updates.",
      );
    }
    try {
      await runtime.access.session(principal, sessionId, "read", "Subscribing to a session");
      await book.add(client, principal?.id, { uri, after: await store.lastEventId(sessionId) });
    } catch (err) {
      throw mcpErrorOf(err);
    }
    return {};
  });

  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    if (client !== undefined) await book.remove(client, principal?.id, request.params.uri);
    return {};
  });
}

/**
 * Sends `notifications/resources/updated` on this server's GET stream for each subscription of
 * `client` (made through any instance), for every event its session logs after the subscription:
 * the session's log, which every instance reads, drives it. Reread when any instance says the
 * client's subscriptions changed. Returns the function that stops it (the stream ended).
 */
export async function followSubscriptions(
  server: McpServer,
  { runtime, principal }: McpReadDeps,
  client: string,
  book: McpSubscriptionBook,
): Promise<() => void> {
  /** URI → the function that stops its watch. */
  const watches = new Map<string, () => void>();
  let stopped = false;

  const sync = async () => {
    const wanted = new Map((await book.list(client, principal?.id)).map((s) => [s.uri, s.after]));
    for (const [uri, stop] of watches) {
      if (wanted.has(uri)) continue;
      stop();
      watches.delete(uri);
    }
    for (const [uri, after] of wanted) {
      const sessionId = sessionOfUri(uri);
      if (stopped || watches.has(uri) || sessionId === undefined) continue;
      const stop = await runtime.watch
        .watch(sessionId, after, (message) => {
          if (message.event === "connected") return;
          // A stream that went away cannot be told; its end stops the watch.
          server.server.sendResourceUpdated({ uri }).catch(() => {});
        })
        .catch(() => undefined);
      if (stop === undefined) continue;
      if (stopped) stop();
      else watches.set(uri, stop);
    }
  };
  // One reread at a time, in order, so a watch is never started twice.
  let syncing = sync();
  const off = book.onChange((changed) => {
    if (changed !== client || stopped) return;
    syncing = syncing.then(sync, sync).catch(() => {});
  });
  await syncing;
  return () => {
    stopped = true;
    off();
    for (const stop of watches.values()) stop();
    watches.clear();
  };
}
