import { resolveChromium } from "./chromium.js";
import { ServiceStartError } from "./failure.js";
import { resolveMysql } from "./mysql.js";
import { resolvePostgres } from "./postgres.js";
import { required } from "./probe.js";
import { resolveSandbox } from "./sandbox.js";

/**
 * What the test files read (set here, before any worker starts, so workers and the CLI processes
 * they spawn inherit it): the PostgreSQL and MySQL URLs (the MySQL one empty when no server answers)
 * and the Chromium executable with any library folder it needs.
 */
export const TEST_ENV = {
  postgres: "ARBOR_TEST_POSTGRES_URL",
  mysql: "ARBOR_TEST_MYSQL_URL",
  chromium: "ARBOR_TEST_CHROMIUM",
  chromiumLibs: "ARBOR_TEST_CHROMIUM_LIBS",
  /** The bubblewrap binary of the sandbox suites; empty when there is none (the suites skip). */
  bwrap: "ARBOR_TEST_BWRAP_FOUND",
} as const;

export interface TestServices {
  /** Lines describing where each service came from, printed once at the start. */
  describe: string[];
  /** The lines printed at the end of the run when suites were skipped, one a suite. */
  skipped?: string;
  stop(): Promise<void>;
}

export async function startTestServices(env: NodeJS.ProcessEnv): Promise<TestServices> {
  const starting = resolvePostgres(env);
  const [postgres, mysql, chromium] = await Promise.all([starting, resolveMysql(env), resolveChromium(env)]).catch(
    async (err: unknown) => {
      // A PostgreSQL the setup started is stopped before reporting what else failed.
      await starting.then((started) => started.stop?.()).catch(() => undefined);
      throw err;
    },
  );
  env[TEST_ENV.postgres] = postgres.url;
  env[TEST_ENV.chromium] = chromium.path;
  if (chromium.libraryPath) env[TEST_ENV.chromiumLibs] = chromium.libraryPath;
  else delete env[TEST_ENV.chromiumLibs];
  const describe = [`PostgreSQL: ${postgres.source}`, `Chromium: ${chromium.source}`];
  const skipped: string[] = [];
  const sandbox = resolveSandbox(env);
  if (sandbox.kind === "bwrap") {
    env[TEST_ENV.bwrap] = sandbox.path;
    describe.push(`sandbox: ${sandbox.source}`);
  } else {
    env[TEST_ENV.bwrap] = "";
    if (required(env, "sandbox")) {
      await postgres.stop?.();
      throw new ServiceStartError(
        "sandbox",
        `ARBOR_TEST_REQUIRE names sandbox, but ${sandbox.reason}`,
        "Install bubblewrap and socat (Debian/Ubuntu: apt-get install bubblewrap socat), or drop sandbox from ARBOR_TEST_REQUIRE.",
      );
    }
    skipped.push(
      `SKIPPED: the sandbox escape suites (${sandbox.reason}). ` +
        "Install bubblewrap and socat (Debian/Ubuntu: apt-get install bubblewrap socat) to include them.",
    );
    describe.push(`sandbox: none (${sandbox.reason})`);
  }
  if (mysql.kind === "server") {
    env[TEST_ENV.mysql] = mysql.url;
    describe.push(`MySQL/MariaDB: ${mysql.source}`);
  } else {
    env[TEST_ENV.mysql] = "";
    if (required(env, "mysql")) {
      await postgres.stop?.();
      throw new ServiceStartError(
        "MySQL/MariaDB",
        `ARBOR_TEST_REQUIRE names mysql, but ${mysql.reason}`,
        "Run a server on 127.0.0.1:3306 (user root, no password) or set ARBOR_TEST_MYSQL=mysql://user:pass@host:port, or drop mysql from ARBOR_TEST_REQUIRE.",
      );
    }
    skipped.push(
      `SKIPPED: the MySQL/MariaDB store suites (${mysql.reason}). ` +
        "Run a server on 127.0.0.1:3306 (user root, no password) or set ARBOR_TEST_MYSQL=mysql://user:pass@host:port to include them.",
    );
    describe.push(`MySQL/MariaDB: none (${mysql.reason})`);
  }
  return { describe, ...(skipped.length > 0 ? { skipped: skipped.join("\n!!! ") } : {}), stop: async () => postgres.stop?.() };
}
