import { execFile } from "node:child_process";
import type { Sandbox, SandboxedCall } from "../../sandbox/sandbox.js";
import { KeyedLock } from "../../store/keyed-lock.js";
import type { PythonProcess, PythonProcessOptions, PythonRun } from "./python-process.js";

export interface PythonReplsOptions {
  /** The interpreter. Default "python3". */
  python?: string;
  /** Printed characters kept per call (the registry's cap then cuts what the model sees). Default 1,000,000. */
  maxOutputChars?: number;
  /** After an interrupt, how long a call gets to stop before its process is killed. Default 2 s. */
  interruptGraceMs?: number;
  /** Confines each session's process (see sandbox/); without one it runs with Arbor's own authority. */
  sandbox?: Sandbox;
}

/** A call's result plus, when the session had to start over, why (the model is told its variables are gone). */
export interface ReplRun extends PythonRun {
  restarted?: string;
  /** What the sandbox has to say: the once-only "no sandbox here" notice, hosts refused during this call. */
  notes?: string[];
}

interface Live {
  proc: PythonProcess;
  call: SandboxedCall | undefined;
  refusedSeen: number;
}

/**
 * The Python sessions of a runtime's runs, one process per session, started on its first
 * `python_repl` call and ended with the run (the runtime's `python` extension). Calls of one session run
 * one after another. A process that died (a crash, or killed after ignoring an interrupt) is
 * replaced on the next call, which reports the restart.
 */
export class PythonRepls {
  private readonly sessions = new Map<string, Live>();
  private interpreter: Promise<{ executable: string; prefix: string } | undefined> | undefined;
  private readonly restarts = new Map<string, string>();
  private readonly lock = new KeyedLock();
  private readonly options: Omit<PythonProcessOptions, "cwd">;
  private readonly sandbox: Sandbox | undefined;

  constructor(options: PythonReplsOptions = {}) {
    this.options = {
      python: options.python ?? "python3",
      maxOutputChars: options.maxOutputChars ?? 1_000_000,
      interruptGraceMs: options.interruptGraceMs ?? 2000,
    };
    this.sandbox = options.sandbox;
  }

  run(sessionId: string, cwd: string, code: string, timeoutMs: number, signal: AbortSignal, agent?: string): Promise<ReplRun> {
    return this.lock.run(sessionId, async () => {
      let live = this.sessions.get(sessionId);
      const notes: string[] = [];
      if (!live?.proc.alive) {
        await live?.call?.close();
        live = await this.start(cwd, agent);
        if (live.call?.notice) notes.push(live.call.notice);
        this.sessions.set(sessionId, live);
      }
      const proc = live.proc;
      const restarted = this.restarts.get(sessionId);
      this.restarts.delete(sessionId);
      let result: PythonRun;
      try {
        result = await proc.run(code, timeoutMs, signal);
      } catch (err) {
        this.sessions.delete(sessionId);
        await live.call?.close();
        throw err;
      }
      const refused = live.call?.refusedHosts() ?? [];
      if (refused.length > live.refusedSeen) {
        notes.push(
          `[Arbor sandbox: connections refused to ${refused.slice(live.refusedSeen).join(", ")} (not in sandbox.network.allow).]`,
        );
        live.refusedSeen = refused.length;
      }
      if (!proc.alive) {
        const exit = proc.exit;
        const how = exit?.signal ? `was killed by ${exit.signal}` : `exited with code ${exit?.code}`;
        this.restarts.set(sessionId, `the previous Python process ${how}`);
      }
      return { ...result, ...(restarted ? { restarted } : {}), ...(notes.length > 0 ? { notes } : {}) };
    });
  }

  /**
   * A process for a session: confined when there is a sandbox, with the interpreter's own folder
   * readable. The process module (and its driver) loads with the first one: most runs never start one.
   */
  private async start(cwd: string, agent: string | undefined): Promise<Live> {
    const { PythonProcess } = await import("./python-process.js");
    if (!this.sandbox) return { proc: new PythonProcess({ ...this.options, cwd }), call: undefined, refusedSeen: 0 };
    // A shim (pyenv) under the hidden home cannot run in the sandbox: the interpreter it points at can.
    this.interpreter ??= whereIs(this.options.python);
    const found = await this.interpreter;
    const python = found?.executable ?? this.options.python;
    const inner = { file: python, args: [], env: { PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" } };
    const call = await this.sandbox.prepare(
      { workspace: cwd, cwd, agent, ...(found ? { readable: [found.prefix] } : {}) },
      inner,
    );
    const wrap = {
      interruptGroup: call.confined,
      command: (command: { file: string; args: string[]; env: Record<string, string> }) => {
        const wrapped = call.command;
        // The sandbox wrapped a placeholder; the driver's own arguments and variables go after it.
        const outer = call.confined
          ? {
              file: "/bin/sh",
              args: ["-c", 'trap "" INT; exec "$0" "$@"', wrapped.file, ...wrapped.args, ...command.args],
              env: wrapped.env,
            }
          : { file: command.file, args: command.args, env: { ...wrapped.env, ...command.env } };
        return outer;
      },
    };
    return { proc: new PythonProcess({ ...this.options, python, cwd, wrap }), call, refusedSeen: 0 };
  }

  /** Whether a session has a live process (for tests and status). */
  isRunning(sessionId: string): boolean {
    return this.sessions.get(sessionId)?.proc.alive ?? false;
  }

  close(sessionId: string): void {
    const live = this.sessions.get(sessionId);
    live?.proc.kill();
    void live?.call?.close();
    this.sessions.delete(sessionId);
    this.restarts.delete(sessionId);
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}

function whereIs(python: string): Promise<{ executable: string; prefix: string } | undefined> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import sys; print(sys.executable); print(sys.base_prefix)"], { timeout: 10_000 }, (err, stdout) => {
      const [executable, prefix] = String(stdout).trim().split("\n");
      resolve(err || !executable || !prefix ? undefined : { executable, prefix });
    });
  });
}
