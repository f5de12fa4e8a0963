import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import { jsonOrUndefined } from "../../json-text.js";
import type { Command } from "../../sandbox/backend.js";
import { PYTHON_DRIVER } from "./driver.js";

const AnswerSchema = z.object({
  id: z.number(),
  output: z.string(),
  dropped: z.number(),
  error: z.string().nullable(),
});

/** One call's result: what the code printed, the error it raised, and how the call ended. */
export interface PythonRun {
  output: string;
  droppedChars: number;
  error?: string;
  /** Why the call has no answer from Python: it ran past its time, was aborted, or the process died. */
  ended?: "timeout" | "aborted" | "crashed";
}

export interface PythonProcessOptions {
  python: string;
  cwd: string;
  maxOutputChars: number;
  /** After SIGINT, how long a call gets to stop before the process is killed. */
  interruptGraceMs: number;
  /**
   * Turns the driver's command into the one spawned (the sandbox's); its processes ignore SIGINT
   * except Python, which takes it back, so an interrupt goes to the whole group.
   */
  wrap?: { command: (inner: Command) => Command; interruptGroup: boolean };
}

/**
 * One `python3` process running the driver. Calls go one at a time (the caller serializes them).
 * A call past its time, or aborted, is interrupted with SIGINT (the session and its variables are
 * kept); code that ignores that is killed with its process group after a grace period.
 */
export class PythonProcess {
  private readonly child: ChildProcess;
  private readonly requests: Writable;
  private nextId = 1;
  private buffered = "";
  private raw = "";
  private waiting: ((answer: z.infer<typeof AnswerSchema> | undefined) => void) | undefined;
  private failure: Error | undefined;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(private readonly options: PythonProcessOptions) {
    // detached: its own process group, so a kill reaches what the code started too.
    const inner: Command = {
      file: options.python,
      args: ["-u", "-c", PYTHON_DRIVER, String(options.maxOutputChars)],
      env: { PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" },
    };
    const command = options.wrap ? options.wrap.command(inner) : { ...inner, env: { ...process.env, ...inner.env } };
    this.child = spawn(command.file, command.args, {
      cwd: options.cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
      env: command.env,
    });
    this.requests = this.child.stdio[3] as Writable;
    this.requests.on("error", () => {}); // a write to a dead process: reported by "exit"
    const answers = this.child.stdio[4] as Readable;
    answers.setEncoding("utf8");
    answers.on("data", (chunk: string) => this.onAnswers(chunk));
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => {
        if (this.raw.length < options.maxOutputChars) this.raw += chunk;
      });
    }
    this.child.on("error", (err: NodeJS.ErrnoException) => {
      this.failure =
        err.code === "ENOENT"
          ? new ArborError(
              "tool_failed",
              `python_repl needs Python 3, and "${options.python}" was not found on the PATH. Install Python 3, or do this without Python.`,
            )
          : new ArborError("tool_failed", `Could not start ${options.python}: ${err.message}`);
      this.exit ??= { code: null, signal: null };
      this.settle(undefined);
    });
    this.child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      this.settle(undefined);
    });
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  async run(code: string, timeoutMs: number, signal: AbortSignal): Promise<PythonRun> {
    if (this.failure) throw this.failure;
    const id = this.nextId++;
    this.raw = "";
    let ended: PythonRun["ended"];
    const answer = new Promise<z.infer<typeof AnswerSchema> | undefined>((resolve) => {
      this.waiting = resolve;
    });
    const interrupt = (why: "timeout" | "aborted") => {
      ended ??= why;
      this.signal("SIGINT", this.options.wrap?.interruptGroup ?? false);
      killTimer ??= setTimeout(() => this.kill(), this.options.interruptGraceMs);
    };
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => interrupt("timeout"), timeoutMs);
    const onAbort = () => interrupt("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    this.requests.write(`${JSON.stringify({ id, code })}\n`);
    try {
      const got = await answer;
      if (this.failure) throw this.failure;
      const extra = this.raw; // what programs the code started wrote to the process's own stdout/stderr
      if (!got) return { output: extra, droppedChars: 0, ended: ended ?? "crashed" };
      return {
        output: got.output + extra,
        droppedChars: got.dropped,
        ...(got.error !== null ? { error: got.error } : {}),
        ...(ended ? { ended } : {}),
      };
    } finally {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  kill(): void {
    this.signal("SIGKILL", true);
  }

  private signal(name: NodeJS.Signals, group: boolean): void {
    if (this.child.pid === undefined || !this.alive) return;
    try {
      process.kill(group ? -this.child.pid : this.child.pid, name);
    } catch {
      // Already gone.
    }
  }

  private onAnswers(chunk: string): void {
    this.buffered += chunk;
    let newline = this.buffered.indexOf("\n");
    while (newline !== -1) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      const parsed = AnswerSchema.safeParse(jsonOrUndefined(line));
      if (parsed.success) this.settle(parsed.data);
      newline = this.buffered.indexOf("\n");
    }
  }

  private settle(answer: z.infer<typeof AnswerSchema> | undefined): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(answer);
  }
}
