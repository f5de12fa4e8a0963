import { randomBytes } from "node:crypto";
import pg from "pg";

/** The server the SQL tests use (same variable as core's tests). */
export const POSTGRES_URL = process.env.ARBOR_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new, empty database of its own for one test run; `drop` removes it even if connections linger. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `arbor_cli_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await admin(`create database "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}
