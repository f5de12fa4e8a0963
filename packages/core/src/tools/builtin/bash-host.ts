import { ArborError, isArborError } from "../../errors.js";
import type { SandboxedOutcome } from "../../sandbox/sandboxed-run.js";
import type { CommandRequest, CommandRunner } from "../workspace.js";

/** How one bash command ended, wherever it ran. */
export interface BashRun {
  output: string;
  /** Newlines the command wrote (stdout and stderr). */
  lines: number;
  droppedBytes: number;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * A command run by the host's `CommandRunner` (an editor's terminal) instead of a local process. It
 * is never confined: `bash` sends a command here only when no sandbox would confine it locally.
 */
export async function runOnHost(
  runner: CommandRunner,
  request: Omit<CommandRequest, "started">,
  started: (metadata: Record<string, unknown>) => void,
): Promise<SandboxedOutcome<BashRun>> {
  let outcome: Awaited<ReturnType<CommandRunner["run"]>>;
  try {
    outcome = await runner.run({ ...request, started });
  } catch (err) {
    if (request.signal.aborted) throw new ArborError("aborted", "The command was aborted.");
    if (isArborError(err)) throw err;
    throw new ArborError(
      "tool_failed",
      `The editor could not run the command: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const output = outcome.output.trimEnd();
  let lines = 0;
  for (const ch of output) if (ch === "\n") lines++;
  return {
    result: {
      output,
      lines,
      droppedBytes: 0,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      aborted: outcome.aborted,
    },
    notes: outcome.truncated ? [`[The editor's terminal kept only the last ${request.maxOutputBytes} bytes of output.]`] : [],
    confined: false,
    refusedHosts: [],
  };
}
