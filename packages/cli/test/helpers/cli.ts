import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const ARBOR_BIN = fileURLToPath(new URL("../../bin/arbor.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CliOptions {
  home: string;
  /** Added to the environment; an empty value leaves the variable set but blank (unset for Arbor). */
  env?: Record<string, string>;
  input?: string;
  /**
   * Runs it as if on another machine: in its own UTS namespace with this hostname, so its leases
   * read as another host's (only expiry frees them, not its pid's death). Needs `otherHostsWork()`.
   */
  host?: string;
  /**
   * Runs it in a pid namespace of its own, as in a container: it is pid 1 there, as the next one
   * started so will be too (a restarted server reuses its dead predecessor's pid). Ends with the
   * returned child (kill -9 reaches it). Needs `pidNamespacesWork()`.
   */
  pidNamespace?: boolean;
  /** The directory the command runs in (default: the repository root). */
  cwd?: string;
  /** An installed `arbor` executable to run instead of this checkout's (e.g. one from a packed install). */
  bin?: string;
}

/** A running `arbor`: its process, what it printed so far, and its result once it exits. */
export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  /** Resolves once stdout matches `pattern` (rejects if the process exits first). */
  waitForStdout(pattern: RegExp): Promise<void>;
  /** Resolves once stderr matches `pattern` (rejects if the process exits first). */
  waitForStderr(pattern: RegExp): Promise<void>;
  result: Promise<CliResult>;
}

/** This process's environment without any ARBOR_* or colour settings, plus ARBOR_HOME = `home` and `env`. */
export function childEnv(opts: Pick<CliOptions, "home" | "env">): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("ARBOR_") && k !== "FORCE_COLOR" && k !== "NO_COLOR") env[k] = v;
  }
  return Object.assign(env, { ARBOR_HOME: opts.home }, opts.env);
}

/**
 * Starts `node packages/cli/bin/arbor.js …`. The child gets this process's environment without any
 * ARBOR_* or colour settings, plus `env`; `home` becomes ARBOR_HOME so the default store is never
 * the user's own.
 */
export function startArbor(args: string[], opts: CliOptions): RunningCli {
  const env = childEnv(opts);
  const started = performance.now();
  // unshare and sh both exec, so the child's pid is the arbor process's own (a kill -9 reaches it);
  // in a pid namespace unshare forks, and its death kills the namespace's first process with it.
  const [command, argv] = opts.host
    ? ["unshare", ["--uts", "sh", "-c", `hostname ${opts.host} && exec "$0" "$@"`, process.execPath, ARBOR_BIN, ...args]]
    : opts.pidNamespace
      ? ["unshare", ["--pid", "--mount-proc", "--kill-child=SIGKILL", process.execPath, ARBOR_BIN, ...args]]
      : opts.bin
        ? [opts.bin, args]
        : [process.execPath, [ARBOR_BIN, ...args]];
  const child = spawn(command, argv, {
    cwd: opts.cwd ?? REPO_ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const watchers = new Set<() => void>();
  const stdout = () => Buffer.concat(out).toString("utf8");
  child.stdout.on("data", (b: Buffer) => {
    out.push(b);
    for (const w of [...watchers]) w();
  });
  const stderr = () => Buffer.concat(err).toString("utf8");
  child.stderr.on("data", (b: Buffer) => {
    err.push(b);
    for (const w of [...watchers]) w();
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      for (const w of [...watchers]) w();
      resolve({ code, stdout: stdout(), stderr: Buffer.concat(err).toString("utf8"), ms: performance.now() - started });
    });
  });
  child.stdin.end(opts.input ?? "");
  const waitFor = (pattern: RegExp, read: () => string, name: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(read())) {
          watchers.delete(check);
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          watchers.delete(check);
          reject(new Error(`arbor exited before printing ${pattern}; ${name}: ${read()}`));
        }
      };
      watchers.add(check);
      check();
    });
  const waitForStdout = (pattern: RegExp) => waitFor(pattern, stdout, "stdout");
  const waitForStderr = (pattern: RegExp) => waitFor(pattern, stderr, "stderr");
  return { child, stdout, waitForStdout, waitForStderr, result };
}

/** Runs `arbor …` and waits for it to exit. */
export function arbor(args: string[], opts: CliOptions): Promise<CliResult> {
  return startArbor(args, opts).result;
}

/** Whether processes can be started under another hostname here (root, with util-linux's unshare). */
export function otherHostsWork(): boolean {
  const r = spawnSync("unshare", ["--uts", "sh", "-c", "hostname arbor-probe && hostname"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() === "arbor-probe";
}

/** Whether processes can be started in a pid namespace of their own here (root, with util-linux's unshare). */
export function pidNamespacesWork(): boolean {
  const r = spawnSync("unshare", ["--pid", "--mount-proc", "--kill-child=SIGKILL", "sh", "-c", "echo $$"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() === "1";
}

/** The URL an `arbor serve --json` prints on its first line, once it has printed it (it serves from then on). */
export async function servedUrl(serve: RunningCli): Promise<string> {
  await serve.waitForStdout(/\n$/);
  return (JSON.parse(serve.stdout()) as { url: string }).url;
}
