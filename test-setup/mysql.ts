import { answers, hidden, hostPort } from "./probe.js";

export const LOCAL_MYSQL = "mysql://root@127.0.0.1:3306";

export type MysqlTarget = { kind: "server"; url: string; source: string } | { kind: "none"; reason: string };

/**
 * MySQL/MariaDB has no embeddable build in npm, so its suites run only against a server that
 * answers: the one named by ARBOR_TEST_MYSQL, else a local one on the standard port.
 */
export async function resolveMysql(env: NodeJS.ProcessEnv): Promise<MysqlTarget> {
  const given = env.ARBOR_TEST_MYSQL;
  if (given) {
    const { host, port } = hostPort(given, 3306);
    if (await answers(host, port)) return { kind: "server", url: given.replace(/\/+$/, ""), source: "ARBOR_TEST_MYSQL" };
    return { kind: "none", reason: `nothing answers at ${host}:${port} (ARBOR_TEST_MYSQL)` };
  }
  if (hidden(env, "mysql")) return { kind: "none", reason: "127.0.0.1:3306 hidden by ARBOR_TEST_HIDE" };
  if (await answers("127.0.0.1", 3306)) return { kind: "server", url: LOCAL_MYSQL, source: "127.0.0.1:3306" };
  return { kind: "none", reason: "nothing answers on 127.0.0.1:3306" };
}
