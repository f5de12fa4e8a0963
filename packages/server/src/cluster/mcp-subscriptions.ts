import type pg from "pg";

/** One resources/subscribe of an MCP client, as any instance of the cluster reads it. */
export interface McpSubscription {
  uri: string;
  /** Notify of the session's events after this id: those logged since the subscription was made. */
  after: number;
}

/**
 * The resources/subscribe requests of a cluster's stateless `/mcp` clients, kept in the cluster's
 * PostgreSQL database, not in an instance's memory: a client subscribes through whichever instance
 * its POST reaches, and the instance that holds its GET stream (now or after a reconnect) reads them
 * here and sends the notifications. A client is named by the Mcp-Session-Id its initialize response
 * got; a subscription is only ever read back for the principal that made it.
 */
export interface McpSubscriptionBook {
  add(client: string, principal: string | undefined, subscription: McpSubscription): Promise<void>;
  remove(client: string, principal: string | undefined, uri?: string): Promise<void>;
  list(client: string, principal: string | undefined): Promise<McpSubscription[]>;
  /** Calls `listener` with a client whose subscriptions changed on any instance; returns its removal. */
  onChange(listener: (client: string) => void): () => void;
}

/** Subscriptions older than this are dropped: a client that went away without ending its MCP session. */
const KEEP_DAYS = 7;

export class PgMcpSubscriptions implements McpSubscriptionBook {
  private readonly listeners = new Set<(client: string) => void>();
  private readonly table: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string | undefined,
    /** Tells every instance (this one too) that a client's subscriptions changed. */
    private readonly broadcast: (client: string) => void,
  ) {
    this.table = `${schema ? `"${schema}".` : ""}arbor_mcp_subscriptions`;
  }

  /**
   * Creates the table unless it exists, under a transaction-scoped advisory lock: instances started
   * at the same moment on a fresh database would otherwise race, and PostgreSQL's `if not exists`
   * is not safe against that (the loser fails on the catalog's unique index of type names).
   */
  async ensureTable(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("begin");
      await client.query("select pg_advisory_xact_lock(hashtext($1))", [this.table]);
      await client.query(
        `create table if not exists ${this.table} (client text not null, principal text not null, uri text not null, ` +
          "after_event bigint not null, at timestamptz not null default now(), primary key (client, uri))",
      );
      await client.query("commit");
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async add(client: string, principal: string | undefined, { uri, after }: McpSubscription): Promise<void> {
    await this.pool.query(`delete from ${this.table} where at < now() - interval '${KEEP_DAYS} days'`);
    // A subscription renewed keeps its first point: nothing logged in between goes untold.
    await this.pool.query(
      `insert into ${this.table} (client, principal, uri, after_event) values ($1, $2, $3, $4) ` +
        "on conflict (client, uri) do update set at = now() where excluded.principal = " +
        `${this.table}.principal`,
      [client, principal ?? "", uri, after],
    );
    this.broadcast(client);
  }

  async remove(client: string, principal: string | undefined, uri?: string): Promise<void> {
    await this.pool.query(
      `delete from ${this.table} where client = $1 and principal = $2${uri === undefined ? "" : " and uri = $3"}`,
      uri === undefined ? [client, principal ?? ""] : [client, principal ?? "", uri],
    );
    this.broadcast(client);
  }

  async list(client: string, principal: string | undefined): Promise<McpSubscription[]> {
    const { rows } = await this.pool.query<{ uri: string; after_event: string }>(
      `select uri, after_event from ${this.table} where client = $1 and principal = $2`,
      [client, principal ?? ""],
    );
    return rows.map((r) => ({ uri: r.uri, after: Number(r.after_event) }));
  }

  onChange(listener: (client: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Heard from the cluster's control channel. */
  changed(client: string): void {
    for (const listener of this.listeners) listener(client);
  }
}
