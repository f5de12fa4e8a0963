import { createConnection } from "node:net";

/** Whether something accepts TCP connections at host:port within `timeoutMs`. */
export function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Host and port of a database URL, with the scheme's default port. */
export function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || "127.0.0.1", port: parsed.port ? Number(parsed.port) : defaultPort };
}

/**
 * `ARBOR_TEST_HIDE=chromium,postgres,mysql` makes the setup act as if the machine had no system
 * Chromium or no server on the standard port, so CI exercises the fallbacks on every run.
 */
export function hidden(env: NodeJS.ProcessEnv, service: "chromium" | "postgres" | "mysql" | "sandbox"): boolean {
  return listed(env.ARBOR_TEST_HIDE, service);
}

/** `ARBOR_TEST_REQUIRE=mysql,postgres,sandbox` turns a skipped suite into a failed run. */
export function required(env: NodeJS.ProcessEnv, service: "postgres" | "mysql" | "sandbox"): boolean {
  return listed(env.ARBOR_TEST_REQUIRE, service);
}

function listed(value: string | undefined, name: string): boolean {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .includes(name);
}
