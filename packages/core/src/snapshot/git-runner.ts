import { type ChildProcess, execFile, fork } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ArborError } from "../errors.js";
import type { BuiltTree, TreeBuild } from "./named-tree.js";

/** git's output past this fails the call (as it always has): a snapshot's diff is cut long before. */
const MAX_BUFFER = 256 * 1024 * 1024;

/** One git invocation in the snapshot history. */
export interface GitCall {
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to git's standard input. */
  input?: string;
}

/** How a git process ended: its output, and the error when it failed (a non-zero exit, no git). */
interface GitOutcome {
  stdout: string;
  stderr: string;
  error?: { message: string; code?: string };
}

/**
 * Why the runner has no outcome: `unavailable` when the call never reached it (git was not started
 * through it), `lost` when it died with the call in flight (git may have run).
 */
export type NoOutcome = "unavailable" | "lost";

/** What the child answers: how a git process ended, or the tree it built (null: git must build it). */
type Answer = GitOutcome | { tree: string | null; files?: BuiltTree["files"] };

/**
 * Starts git from a small child process instead of this one. Creating a process forks its parent;
 * a fork of a big server (hundreds of MB) takes milliseconds of its event loop, stalling every run
 * it serves, while the child's fork is cheap and off that loop. The child starts with the first call,
 * holds this process open only while a call is in flight, and a new one starts on the call after it
 * died (unless it died before answering anything: then git is started here from then on). A call it
 * cannot take is run here as before, so a dead runner never stops snapshots.
 */
export class GitRunner {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, (answer: Answer | NoOutcome) => void>();
  private nextId = 1;
  private closed = false;
  /** A child died before answering anything: one that cannot start would cost a fork of this process a call. */
  private broken = false;

  /** The child's process id while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  run(call: GitCall): Promise<GitOutcome | NoOutcome> {
    const request = { args: [...call.args], cwd: call.cwd, env: call.env, input: call.input, maxBuffer: MAX_BUFFER };
    return this.ask(request) as Promise<GitOutcome | NoOutcome>;
  }

  /**
   * Builds in the child the tree `treeWithFiles` would, with its patch when the child could write
   * it: null when git must build it, or why the child did not answer (the caller then builds it itself).
   */
  async build(request: TreeBuild): Promise<BuiltTree | null | NoOutcome> {
    const answer = await this.ask({ build: request });
    if (typeof answer === "string") return answer;
    if (!("tree" in answer) || answer.tree === null) return null;
    return answer.files ? { tree: answer.tree, files: answer.files } : { tree: answer.tree };
  }

  private ask(request: object): Promise<Answer | NoOutcome> {
    const child = this.closed || this.broken ? undefined : (this.child ?? this.start());
    if (!child?.connected) return Promise.resolve("unavailable");
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      if (this.pending.size === 1) hold(child, true);
      child.send({ id, ...request }, (error) => {
        if (error) this.settle(child, id, "unavailable");
      });
    });
  }

  /** Ends the child; calls still in flight are run here. Resolves once it has exited. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // Held until it has exited: an idle (unreferenced) child would let the process end with this unsettled.
    hold(child, true);
    child.kill();
    await exited;
  }

  private start(): ChildProcess | undefined {
    // Built, the child is JavaScript beside this file; run from sources (tests), Node strips the types.
    const built = new URL("./git-runner-child.js", import.meta.url);
    const script = existsSync(fileURLToPath(built)) ? built : new URL("./git-runner-child.ts", import.meta.url);
    let child: ChildProcess;
    try {
      // No inherited flags: an --inspect port or a test runner's loader is this process's, not the child's.
      child = fork(fileURLToPath(script), [], {
        execArgv: [],
        stdio: ["ignore", "ignore", "ignore", "ipc"],
        serialization: "json",
      });
    } catch {
      return undefined;
    }
    this.child = child;
    let answered = false;
    child.on("message", (message: Answer & { id: number }) => {
      answered = true;
      const { id, ...outcome } = message;
      this.settle(child, id, outcome);
    });
    const gone = () => {
      if (this.child === child) this.child = undefined;
      if (!answered) this.broken = true;
      for (const id of [...this.pending.keys()]) this.settle(child, id, "lost");
    };
    child.on("exit", gone);
    child.on("error", gone);
    hold(child, false);
    return child;
  }

  private settle(child: ChildProcess, id: number, outcome: Answer | NoOutcome): void {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    if (this.pending.size === 0) hold(child, false);
    resolve(outcome);
  }
}

/** An idle runner must not keep the process alive: its handle and channel count only while a call waits. */
function hold(child: ChildProcess, held: boolean): void {
  if (held) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/**
 * Runs git, through `runner` when given, and returns what it printed. A call the runner did not take
 * is run here; one it lost (the runner died meanwhile) is run again here unless `once` (a write that
 * must not happen twice, like `git apply`), which then fails.
 */
export async function runGit(call: GitCall, runner?: GitRunner, once = false): Promise<string> {
  let outcome = runner ? await runner.run(call) : "unavailable";
  if (outcome === "lost" && once) {
    throw new ArborError(
      "snapshot_failed",
      `git ${call.args[0]} was interrupted (its runner process stopped); check the workspace's files before trying again.`,
    );
  }
  if (outcome === "lost") outcome = await afterLost(call);
  else if (typeof outcome === "string") outcome = await direct(call);
  if (!outcome.error) return outcome.stdout;
  throw new ArborError(
    "snapshot_failed",
    outcome.error.code === "ENOENT"
      ? "File snapshots need git on the PATH; install git or run without snapshots."
      : `git ${call.args[0]} failed in the snapshot history: ${outcome.stderr.trim() || outcome.error.message}`,
  );
}

/** How long a lost call's rerun waits, at most, for the lock its first git still holds. */
const LOST_LOCK_WAIT_MS = 5_000;
const LOST_LOCK_RETRY_MS = 20;
const HELD_LOCK = /Unable to create '[^']*\.lock': File exists/;

/**
 * Runs a lost call again here. The runner died, but the git it had started did not: killing a process
 * leaves its children running, and that git still holds its lock (`index.lock`) until it ends, a few
 * milliseconds later. A rerun that finds the lock waits for it to go, within a bound, instead of failing
 * the step's snapshot (the first git does the same idempotent work; whatever it leaves, the rerun redoes).
 */
async function afterLost(call: GitCall): Promise<GitOutcome> {
  const until = Date.now() + LOST_LOCK_WAIT_MS;
  for (;;) {
    const outcome = await direct(call);
    if (!outcome.error || !HELD_LOCK.test(outcome.stderr) || Date.now() >= until) return outcome;
    await new Promise((resolve) => setTimeout(resolve, LOST_LOCK_RETRY_MS));
  }
}

function direct(call: GitCall): Promise<GitOutcome> {
  return new Promise((resolve) => {
    const child = execFile("git", call.args, { env: call.env, cwd: call.cwd, maxBuffer: MAX_BUFFER }, (error, stdout, stderr) => {
      const code = error ? (error as NodeJS.ErrnoException).code : undefined;
      resolve({
        stdout,
        stderr,
        ...(error ? { error: { message: error.message, ...(typeof code === "string" ? { code } : {}) } } : {}),
      });
    });
    if (call.input !== undefined) child.stdin?.end(call.input);
  });
}
