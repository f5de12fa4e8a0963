import { randomUUID } from "node:crypto";
import pg from "pg";
import { z } from "zod";

/** Channel of "a session's event log grew" pointers: `<session id> <event id>`, never the events. */
const EVENTS_CHANNEL = "arbor_events";
/** Channel of small requests between instances (abort this run, answer that ask) and their acks. */
const CONTROL_CHANNEL = "arbor_control";
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_900;

/** What one instance asks the others; the one that can do it answers with an ack of the same `rid`. */
export const ControlRequestSchema = z.discriminatedUnion("t", [
  z.object({ t: z.literal("abort"), rid: z.string(), session: z.string(), reason: z.string() }),
  z.object({
    t: z.literal("permission"),
    rid: z.string(),
    id: z.string(),
    reply: z.enum(["once", "always", "reject"]),
    message: z.string().optional(),
    /** How far an "always" reaches, as the client chose it. */
    scope: z.enum(["session", "project", "global"]).optional(),
  }),
  z.object({ t: z.literal("plan"), rid: z.string(), plan: z.string(), approved: z.boolean(), reason: z.string().optional() }),
  /** An MCP client's resources/subscribe requests changed: the instance holding its stream rereads them. */
  z.object({ t: z.literal("mcp_subscriptions"), rid: z.string(), client: z.string() }),
]);
export type ControlRequest = z.infer<typeof ControlRequestSchema>;
const ControlMessageSchema = z.union([ControlRequestSchema, z.object({ t: z.literal("ack"), rid: z.string() })]);

/** Request without its id: the id is given by `ask`. */
export type ControlAsk = ControlRequest extends infer R ? (R extends ControlRequest ? Omit<R, "rid"> : never) : never;

/**
 * LISTEN/NOTIFY between the instances of a cluster: wake-ups for readers of a session's event log
 * (the reader then reads the log by offset, so a lost or duplicated notification costs at most a
 * read) and a small request/ack channel for what only the driving instance can do.
 */
export class PgSignals {
  private listener: pg.Client | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly acks = new Map<string, () => void>();
  private handler: ((req: ControlRequest) => Promise<boolean>) | undefined;
  private closed = false;
  private reconnect: NodeJS.Timeout | undefined;
  /** The listening connection is up: the instance hears the others. */
  listening = false;

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly log: (line: string) => void,
  ) {}

  async start(handler: (req: ControlRequest) => Promise<boolean>): Promise<void> {
    this.handler = handler;
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (n) => this.heard(n.channel, n.payload ?? ""));
    client.on("error", (err) => {
      this.listening = false;
      this.log(`arbor serve: the cluster's listening connection failed (${err.message}); reconnecting`);
      void client.end().catch(() => undefined);
      this.scheduleReconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    await client.query(`LISTEN ${CONTROL_CHANNEL}`);
    this.listener = client;
    this.listening = true;
    // Whatever was notified while not listening is caught up by waking every reader once.
    for (const id of [...this.waiters.keys()]) this.wake(id);
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnect) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = undefined;
      this.connect().catch(() => this.scheduleReconnect());
    }, 1_000);
    this.reconnect.unref();
  }

  private heard(channel: string, payload: string): void {
    if (channel === EVENTS_CHANNEL) {
      const space = payload.indexOf(" ");
      this.wake(space < 0 ? payload : payload.slice(0, space));
      return;
    }
    let parsed: z.infer<typeof ControlMessageSchema>;
    try {
      const r = ControlMessageSchema.safeParse(JSON.parse(payload));
      if (!r.success) return;
      parsed = r.data;
    } catch {
      return;
    }
    if (parsed.t === "ack") {
      this.acks.get(parsed.rid)?.();
      return;
    }
    const req = parsed;
    void this.handler?.(req).then(
      (done) => {
        if (done) void this.send(CONTROL_CHANNEL, JSON.stringify({ t: "ack", rid: req.rid }));
      },
      () => undefined,
    );
  }

  private wake(sessionId: string): void {
    const set = this.waiters.get(sessionId);
    if (!set) return;
    this.waiters.delete(sessionId);
    for (const w of set) w();
  }

  /** Tells every instance that the session's log reached `eventId`. */
  logged(sessionId: string, eventId: number): void {
    void this.send(EVENTS_CHANNEL, `${sessionId} ${eventId}`).catch(() => undefined);
  }

  /** Resolves at the next pointer for the session, or after `ms`. */
  changed(sessionId: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.waiters.get(sessionId);
      if (!set) {
        set = new Set();
        this.waiters.set(sessionId, set);
      }
      const done = () => {
        clearTimeout(timer);
        this.waiters.get(sessionId)?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** Sends a request to every other instance; true once one of them acks it, false after `ms` without. */
  async ask(req: ControlAsk, ms: number): Promise<boolean> {
    const rid = randomUUID();
    const payload = JSON.stringify({ ...req, rid });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) return false;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.acks.delete(rid);
        resolve(false);
      }, ms);
      this.acks.set(rid, () => {
        clearTimeout(timer);
        this.acks.delete(rid);
        resolve(true);
      });
      this.send(CONTROL_CHANNEL, payload).catch(() => {
        clearTimeout(timer);
        this.acks.delete(rid);
        resolve(false);
      });
    });
  }

  /** Tells every instance, this one too, without waiting for any to act on it. */
  tell(req: ControlAsk): void {
    void this.send(CONTROL_CHANNEL, JSON.stringify({ ...req, rid: randomUUID() })).catch(() => undefined);
  }

  private async send(channel: string, payload: string): Promise<void> {
    await this.pool.query("select pg_notify($1, $2)", [channel, payload]);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.reconnect) clearTimeout(this.reconnect);
    for (const id of [...this.waiters.keys()]) this.wake(id);
    await this.listener?.end().catch(() => undefined);
  }
}
