import { spawn } from "node:child_process";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import type { Command } from "../../sandbox/backend.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { runSandboxed } from "../../sandbox/sandboxed-run.js";
import type { BlobStore } from "../blob-store.js";
import { capOutput, DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "../output-cap.js";
import { resolveToolPath } from "../paths.js";
import { throttleProgress } from "../progress-throttle.js";
import { createShellParser } from "../shell-commands.js";
import { defineTool } from "../tool.js";
import { type BashRun, runOnHost } from "./bash-host.js";
import { askToRun } from "./bash-permission.js";
import { statOrUndefined } from "./fs-errors.js";

export interface BashToolOptions {
  /** Used when the call gives no timeout. Default 2 minutes. */
  defaultTimeoutMs?: number;
  /** The largest timeout a call may ask for. Default 10 minutes. */
  maxTimeoutMs?: number;
  /** After SIGTERM, how long the process group gets before SIGKILL. Default 2 s. */
  killGraceMs?: number;
  /**
   * Output kept in memory; beyond it the rest is counted and dropped. The registry's cap then cuts
   * what the model sees; this bound only keeps a runaway `yes` from exhausting memory. Default 10 MB.
   */
  maxBufferBytes?: number;
  /** Shell binary run as `<shell> -c <command>`. Default "bash". */
  shell?: string;
  /**
   * Where a long output is kept in full (the registry's store). With it bash cuts its own output,
   * keeping the end (where errors and summaries are) and the exit status visible; without it the
   * registry's cap applies as for any tool.
   */
  blobs?: BlobStore;
  limits?: OutputLimits;
  /** Confines every command (see sandbox/); without one the command runs with Arbor's own authority. */
  sandbox?: Sandbox;
}

export const BashInputSchema = z.strictObject({
  command: z.string().min(1).describe("The command to run with bash -c."),
  timeout: z.number().int().positive().optional().describe("Timeout in milliseconds (default 120000)."),
  workdir: z.string().min(1).optional().describe("Folder to run in, relative to the workspace root (default: the root)."),
  description: z.string().optional().describe("Five to ten words saying what the command does, shown to the user."),
});

/** How much of the running output is sent with each progress update. */
const PROGRESS_TAIL_CHARS = 4000;

/**
 * Runs a shell command in the workspace. The shell is the leader of its own process group, so a
 * timeout or an abort kills everything it started (a test runner's workers, a backgrounded server),
 * not just the shell: SIGTERM to the group, then SIGKILL if anything is still holding on.
 */
export function bashTool(options: BashToolOptions = {}) {
  const defaultTimeout = options.defaultTimeoutMs ?? 120_000;
  const maxTimeout = options.maxTimeoutMs ?? 600_000;
  const killGrace = options.killGraceMs ?? 2000;
  const maxBuffer = options.maxBufferBytes ?? 10 * 1024 * 1024;
  const shell = options.shell ?? "bash";
  const parser = createShellParser();

  return defineTool({
    name: "bash",
    // A command can do anything; it gets the call's key as ARBOR_IDEMPOTENCY_KEY to make itself repeatable.
    effects: "at-most-once",
    description:
      "Run a shell command (bash -c) in the workspace and return its combined stdout and stderr with the exit code. " +
      `Default timeout ${defaultTimeout} ms, at most ${maxTimeout} ms; on timeout the command and everything it ` +
      "started is killed. Prefer read, list, glob and grep over cat, ls, find and grep.",
    input: BashInputSchema,
    async execute(input, ctx) {
      if (input.timeout !== undefined && input.timeout > maxTimeout) {
        throw new ArborError("invalid_tool_input", `timeout ${input.timeout} ms is over the limit of ${maxTimeout} ms.`);
      }
      const timeout = input.timeout ?? defaultTimeout;
      const cwd = input.workdir ? await resolveToolPath(ctx, input.workdir, "directory") : ctx.cwd;
      if (input.workdir && !(await statOrUndefined(cwd))?.isDirectory()) {
        throw new ArborError("tool_failed", `workdir ${input.workdir} is not a folder.`);
      }
      const command = input.command.trim();
      await askToRun(ctx, command, await parser.analyze(command), cwd);
      if (ctx.abort.aborted) throw new ArborError("aborted", "The command was aborted before it started.");

      // Lines reach clients as they are written, at most a few times a second.
      const progress = throttleProgress((update) => ctx.metadata(update));
      // The call's idempotency key reaches the command, so a script can make its effect happen once.
      const env: Record<string, string> = ctx.idempotencyKey === undefined ? {} : { ARBOR_IDEMPOTENCY_KEY: ctx.idempotencyKey };
      const inner = { file: shell, args: ["-c", command], env };
      const spawnIt = (spawnable: Command) =>
        runInGroup(spawnable, { cwd, timeout, killGrace, maxBuffer, signal: ctx.abort }, (tail, lines) =>
          progress.report({ title: input.description ?? command, metadata: { lines }, live: { output: tail } }),
        );
      // The host's terminal (an editor's) when it offers one, unless a sandbox would confine the command here.
      const runner = ctx.workspace?.commands;
      const onHost = runner !== undefined && !(await options.sandbox?.confines(ctx.agent));
      const sandboxed = await (onHost
        ? runOnHost(
            runner,
            { command, shell, cwd, env, timeoutMs: timeout, maxOutputBytes: maxBuffer, signal: ctx.abort },
            (metadata) => ctx.metadata({ title: input.description ?? command, metadata }),
          )
        : runSandboxed(options.sandbox, ctx, cwd, inner, spawnIt, (r) => r.output)
      ).finally(() => progress.flush());
      const run = sandboxed.result;
      let output = run.output.length > 0 ? run.output : "(no output)";
      if (sandboxed.notes.length > 0) output += `\n\n${sandboxed.notes.join("\n")}`;
      if (run.droppedBytes > 0) output += `\n\n[${run.droppedBytes} more bytes of output were dropped.]`;
      let fullOutputRef: string | undefined;
      if (options.blobs) {
        ({ output, fullOutputRef } = await capOutput(output, options.blobs, options.limits ?? DEFAULT_OUTPUT_LIMITS, "tail"));
      }
      if (run.aborted) throw new ArborError("aborted", `${output}\n\n[Command aborted; its process group was killed.]`);
      if (run.timedOut) output += `\n\n[Command timed out after ${timeout} ms; its process group was killed.]`;
      else if (run.signal) output += `\n\n[Terminated by signal ${run.signal}.]`;
      else output += `\n\n[exit code: ${run.exitCode}]`;
      return {
        output,
        title: input.description ?? command,
        metadata: {
          exitCode: run.exitCode,
          signal: run.signal,
          timedOut: run.timedOut,
          lines: run.lines,
          sandboxed: sandboxed.confined,
          ...(sandboxed.refusedHosts.length > 0 ? { refusedHosts: sandboxed.refusedHosts } : {}),
        },
        ...(fullOutputRef ? { truncated: { fullOutputRef } } : {}),
      };
    },
  });
}

interface RunOptions {
  cwd: string;
  timeout: number;
  killGrace: number;
  maxBuffer: number;
  signal: AbortSignal;
}

function runInGroup(command: Command, opts: RunOptions, progress: (tail: string, lines: number) => void): Promise<BashRun> {
  return new Promise((resolve, reject) => {
    // detached: the child calls setsid(), becoming leader of a new process group whose id is its pid.
    const child = spawn(command.file, command.args, {
      cwd: opts.cwd,
      env: command.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    let tail = "";
    let lines = 0;
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
    let killTimer: NodeJS.Timeout | undefined;

    const onData = (chunk: Buffer) => {
      const room = opts.maxBuffer - kept;
      if (room > 0) {
        chunks.push(room >= chunk.length ? chunk : chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
      tail = (tail + chunk.toString("utf8")).slice(-PROGRESS_TAIL_CHARS);
      for (const byte of chunk) if (byte === 10) lines++;
      progress(tail, lines);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const terminate = () => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), opts.killGrace);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, opts.timeout);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    opts.signal.addEventListener("abort", onAbort, { once: true });

    const cleanup = () => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal.removeEventListener("abort", onAbort);
    };
    child.on("error", (err) => {
      cleanup();
      reject(new ArborError("tool_failed", `Could not start ${command.file}: ${err.message}`));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
    });
    // "close" waits for the pipes as well as the exit, so output written just before exiting is kept.
    child.on("close", () => {
      cleanup();
      resolve({
        output: Buffer.concat(chunks).toString("utf8").trimEnd(),
        lines,
        droppedBytes: dropped,
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        aborted,
      });
    });
  });
}
