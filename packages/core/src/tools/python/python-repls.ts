import { KeyedLock } from "../../store/keyed-lock.js";
import { PythonProcess, type PythonProcessOptions, type PythonRun } from "./python-process.js";

export interface PythonReplsOptions {
  /** The interpreter. Default "python3". */
  python?: string;
  /** Printed characters kept per call (the registry's cap then cuts what the model sees). Default 1,000,000. */
  maxOutputChars?: number;
  /** After an interrupt, how long a call gets to stop before its process is killed. Default 2 s. */
  interruptGraceMs?: number;
}

/** A call's result plus, when the session had to start over, why (the model is told its variables are gone). */
export interface ReplRun extends PythonRun {
  restarted?: string;
}

/**
 * The Python sessions of a runtime's runs, one process per session, started on its first
 * `python_repl` call and ended with the run (the runtime's `python` extension). Calls of one session run
 * one after another. A process that died (a crash, or killed after ignoring an interrupt) is
 * replaced on the next call, which reports the restart.
 */
export class PythonRepls {
  private readonly sessions = new Map<string, PythonProcess>();
  private readonly restarts = new Map<string, string>();
  private readonly lock = new KeyedLock();
  private readonly options: Omit<PythonProcessOptions, "cwd">;

  constructor(options: PythonReplsOptions = {}) {
    this.options = {
      python: options.python ?? "python3",
      maxOutputChars: options.maxOutputChars ?? 1_000_000,
      interruptGraceMs: options.interruptGraceMs ?? 2000,
    };
  }

  run(sessionId: string, cwd: string, code: string, timeoutMs: number, signal: AbortSignal): Promise<ReplRun> {
    return this.lock.run(sessionId, async () => {
      let proc = this.sessions.get(sessionId);
      if (!proc?.alive) {
        proc = new PythonProcess({ ...this.options, cwd });
        this.sessions.set(sessionId, proc);
      }
      const restarted = this.restarts.get(sessionId);
      this.restarts.delete(sessionId);
      let result: PythonRun;
      try {
        result = await proc.run(code, timeoutMs, signal);
      } catch (err) {
        this.sessions.delete(sessionId);
        throw err;
      }
      if (!proc.alive) {
        const exit = proc.exit;
        const how = exit?.signal ? `was killed by ${exit.signal}` : `exited with code ${exit?.code}`;
        this.restarts.set(sessionId, `the previous Python process ${how}`);
      }
      return restarted ? { ...result, restarted } : result;
    });
  }

  /** Whether a session has a live process (for tests and status). */
  isRunning(sessionId: string): boolean {
    return this.sessions.get(sessionId)?.alive ?? false;
  }

  close(sessionId: string): void {
    this.sessions.get(sessionId)?.kill();
    this.sessions.delete(sessionId);
    this.restarts.delete(sessionId);
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}
