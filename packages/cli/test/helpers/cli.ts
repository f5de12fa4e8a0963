import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const ARBOR_BIN = fileURLToPath(new URL("../../bin/arbor.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs `node packages/cli/bin/arbor.js …` and waits for it to exit. The child gets this process's
 * environment without any ARBOR_* or colour settings, plus `env`; `home` becomes ARBOR_HOME so the
 * default store is never the user's own.
 */
export function arbor(args: string[], opts: { home: string; env?: Record<string, string>; input?: string }): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ARBOR_") && k !== "FORCE_COLOR" && k !== "NO_COLOR") env[k] = v;
  }
  Object.assign(env, { ARBOR_HOME: opts.home }, opts.env);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ARBOR_BIN, ...args], { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ms: performance.now() - started,
      }),
    );
    child.stdin.end(opts.input ?? "");
  });
}
