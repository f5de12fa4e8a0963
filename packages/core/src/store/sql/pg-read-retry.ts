import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, QueryResult, TransactionSettings } from "kysely";
import { connectionLost, PG_ATTEMPTS, reconnectPause } from "./pg-transaction.js";

const WRITES =
  /\b(insert|update|delete|merge|nextval|setval|pg_advisory\w*|for\s+(update|share|no\s+key\s+update|key\s+share))\b/i;

/** A statement that changes nothing and takes no lock, so running it twice is the same as once. */
function readOnly(query: CompiledQuery): boolean {
  if (query.query.kind === "SelectQueryNode") return !WRITES.test(query.sql);
  return query.query.kind === "RawNode" && /^\s*(select|with)\b/i.test(query.sql) && !WRITES.test(query.sql);
}

const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback|end)\b/i;

/**
 * One checkout of a pooled connection. When the first statement of a checkout is a read outside a
 * transaction and the connection turns out to be dead (its backend terminated while idle in the pool,
 * or while the read ran), the read runs again on a fresh connection: a read has no effect to repeat,
 * and as the checkout's first statement nothing session-scoped (a transaction, a lock, a setting)
 * was set up on the dead connection that the fresh one would lack. Everything else fails as before:
 * a write may have been applied, and a transaction is redone whole by `pgTransaction`.
 */
class Checkout implements DatabaseConnection {
  private statements = 0;
  inTransaction = false;

  constructor(
    private readonly driver: Driver,
    public inner: DatabaseConnection,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const first = this.statements++ === 0;
    if (TRANSACTION_START.test(query.sql)) this.inTransaction = true;
    const retryable = first && !this.inTransaction && readOnly(query);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.inner.executeQuery<R>(query);
        } catch (err) {
          if (!retryable || attempt >= PG_ATTEMPTS || !connectionLost(err)) throw err;
          // pg's pool drops a client that is no longer queryable when it is given back.
          await this.driver.releaseConnection(this.inner).catch(() => undefined);
          await reconnectPause(attempt);
          this.inner = await this.driver.acquireConnection();
        }
      }
    } finally {
      if (TRANSACTION_END.test(query.sql)) this.inTransaction = false;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    this.statements++;
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Kysely's PostgreSQL driver with each checkout a `Checkout` (see there). */
export class ReadRetryDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Checkout(this.inner, await this.inner.acquireConnection());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const checkout = connection as Checkout;
    checkout.inTransaction = true;
    await this.inner.beginTransaction(checkout, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // The stock driver marks the pg client to be discarded when ROLLBACK fails: it must see its own connection.
    return this.inner.rollbackTransaction((connection as Checkout).inner).finally(() => {
      (connection as Checkout).inTransaction = false;
    });
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as Checkout).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
