import {
  type DatabaseIntrospector,
  type Driver,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from "kysely";
import { ReadRetryDriver } from "./pg-read-retry.js";

/**
 * Kysely's Migrator asks the introspector whether its tables exist. The stock PostgreSQL
 * introspector reads every schema of the database and resolves each by name
 * (pg_get_serial_sequence, has_schema_privilege), so it fails with "schema … does not exist"
 * whenever another schema is dropped while a store opens — routine when tenants or test runs
 * share a database. This one only looks at the schemas on the connection's search path and
 * reads names straight from the catalog, which cannot race like that.
 */
class SearchPathIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ schema: string; name: string; kind: string }>`
      select n.nspname as schema, c.relname as name, c.relkind as kind
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'v', 'm', 'f') and n.nspname = any (current_schemas(false))`.execute(this.db);
    return rows.map((r) => ({
      schema: r.schema,
      name: r.name,
      isView: r.kind === "v" || r.kind === "m",
      isForeign: r.kind === "f",
      columns: [],
    }));
  }
}

/** The stock dialect with the search-path introspector and reads retried on a dead connection. */
export class ArborPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new ReadRetryDriver(super.createDriver());
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SearchPathIntrospector(db);
  }
}
