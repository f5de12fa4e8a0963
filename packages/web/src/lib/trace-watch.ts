import { socketUrl } from "../api/client.js";

/**
 * The trace watch socket (`WS /api/traces/:id/watch?since_event_id=N`) with reconnects:
 * each new connection asks for the events after the last id this client handled, and any event at
 * or below it is dropped, so a reconnect neither loses nor repeats one. `connected` is handed on
 * every time (it carries the goal tree as of the reconnect).
 */
export interface WatchMessage {
  event: string;
  event_id?: number;
  trace_id?: string;
  [field: string]: unknown;
}

export type WatchState = "connecting" | "live" | "reconnecting" | "closed";

export interface TraceWatchOptions {
  onMessage: (message: WatchMessage) => void;
  onState?: (state: WatchState) => void;
  /** Start after this event id (default 0: the whole log). */
  since?: number;
}

const MAX_BACKOFF_MS = 5000;

export class TraceWatch {
  private socket: WebSocket | undefined;
  private lastEventId: number;
  private attempts = 0;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly traceId: string,
    private readonly options: TraceWatchOptions,
  ) {
    this.lastEventId = options.since ?? 0;
    this.connect();
  }

  get lastId(): number {
    return this.lastEventId;
  }

  private connect(): void {
    if (this.stopped) return;
    this.options.onState?.(this.attempts === 0 ? "connecting" : "reconnecting");
    const path = `/api/traces/${encodeURIComponent(this.traceId)}/watch?since_event_id=${this.lastEventId}`;
    const socket = new WebSocket(socketUrl(path));
    this.socket = socket;
    socket.onopen = () => {
      this.attempts = 0;
      this.options.onState?.("live");
    };
    socket.onmessage = (event) => {
      let message: WatchMessage;
      try {
        message = JSON.parse(String(event.data)) as WatchMessage;
      } catch {
        return;
      }
      if (typeof message.event_id === "number") {
        if (message.event_id <= this.lastEventId) return;
        this.lastEventId = message.event_id;
      }
      this.options.onMessage(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket || this.stopped) return;
      this.options.onState?.("reconnecting");
      const delay = Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.attempts++);
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
    this.options.onState?.("closed");
  }
}
