import type { WatchMessage } from "@arbor/core";
import { WatchMessageSchema } from "@arbor/core/wire";
import WebSocket from "ws";

/** A WebSocket watcher: every message it got, and a way to wait for one. */
export function watchSocket(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url.replace(/^http/, "ws"), { headers });
  const received: WatchMessage[] = [];
  const waiters: Array<{ until: (m: WatchMessage) => boolean; resolve: () => void }> = [];
  ws.on("message", (data) => {
    const message = WatchMessageSchema.parse(JSON.parse(String(data)));
    received.push(message);
    for (const w of waiters.splice(0)) {
      if (w.until(message)) w.resolve();
      else waiters.push(w);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    received,
    opened,
    closed,
    ids: () => received.flatMap((m) => ("event_id" in m ? [m.event_id] : [])),
    logged: () => received.filter((m) => m.event !== "connected"),
    when: (until: (m: WatchMessage) => boolean) =>
      received.some(until) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ until, resolve })),
  };
}
