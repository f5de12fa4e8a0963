import { homedir } from "node:os";
import { run } from "../../src/cli.js";
import { type CliOptions, type CliResult, childEnv, REPO_ROOT } from "./cli.js";
import { captureIo } from "./io.js";

/**
 * Runs `arbor …` in this process through `run`, as `arbor(args, opts)` runs it as a child: the same
 * environment (this process's without ARBOR_* or colour settings, plus ARBOR_HOME and `opts.env`),
 * the same working directory, stdin fed `opts.input`, and no terminal (a child's streams are pipes).
 * It saves starting Node and loading the CLI for every command (most of an e2e test's time), so the
 * tests that only read a command's output and exit code use it; tests about the process itself
 * (signals, kill -9, exit of a real process, cold start, other hosts, pid namespaces, installed
 * binaries) keep `arbor`. `process.env` is never changed: the CLI reads its environment from `io.env`.
 */
export async function runArborInProcess(args: string[], opts: CliOptions): Promise<CliResult> {
  if (opts.host !== undefined || opts.pidNamespace === true || opts.bin !== undefined) {
    throw new Error("another host, a pid namespace or an installed binary needs a real process: use arbor()");
  }
  // Node reads its own settings (NODE_OPTIONS, NODE_USE_ENV_PROXY, …) when a process starts: in this
  // process they would be ignored and the test would check something else than it says.
  const nodeSettings = Object.keys(opts.env ?? {}).filter((k) => k.startsWith("NODE_"));
  if (nodeSettings.length > 0) throw new Error(`${nodeSettings.join(", ")} take effect at start-up: use arbor()`);
  const env = childEnv(opts);
  const io = captureIo({
    env,
    // A child's home directory comes from HOME, which a test may set.
    homedir: env.HOME || homedir(),
    ...(opts.input === undefined ? {} : { input: opts.input }),
  });
  const started = performance.now();
  const code = await run(args, { ...io, cwd: opts.cwd ?? REPO_ROOT });
  return { code, stdout: io.out(), stderr: io.err(), ms: performance.now() - started };
}
