/**
 * Where a run's file tools read and write and where `bash` runs its commands, when that is not this
 * process's disk and shell: a host that sits in front of another program's view of the workspace (an
 * editor holding unsaved buffers, an editor's terminal) hands these to `RunInput.workspace`. The
 * tools still resolve paths, ask permissions and shape their output; only the reading, writing and
 * running go through here. Absent, every tool uses the local disk and spawns locally (in the sandbox
 * when one is configured).
 */
export interface Workspace {
  /** Text files as the host holds them (an editor's buffers, saved or not). */
  files?: WorkspaceFiles;
  /** Commands run by the host (an editor's terminal the user watches). */
  commands?: CommandRunner;
}

/**
 * Reading and writing whole text files by absolute path. Both reject with an `ArborError` (or any
 * error, reported to the model as the tool's failure) when the host cannot do it.
 */
export interface WorkspaceFiles {
  /** The file's text, unsaved changes included. */
  readText(path: string, signal: AbortSignal): Promise<string>;
  /** Replaces (or creates) the file with `content`; the host decides when it reaches the disk. */
  writeText(path: string, content: string, signal: AbortSignal): Promise<void>;
}

/** One command for a `CommandRunner`: `shell -c command` in `cwd`. */
export interface CommandRequest {
  command: string;
  shell: string;
  /** Absolute folder to run in. */
  cwd: string;
  /** Added to the host's environment. */
  env: Readonly<Record<string, string>>;
  /** After this long the command is stopped and the outcome says `timedOut`. */
  timeoutMs: number;
  /** Output the host keeps at most (it keeps the end). */
  maxOutputBytes: number;
  /** Aborted when the run is cancelled: the command is stopped and the outcome says `aborted`. */
  signal: AbortSignal;
  /**
   * Told once the command has started, with what a client can show of it (`terminalId`); the tool
   * passes it on as its progress metadata.
   */
  started?(metadata: Record<string, unknown>): void;
}

/** How a command ended, with its combined output. */
export interface CommandOutcome {
  output: string;
  /** The host kept only the end of a longer output. */
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
}

/** Runs shell commands somewhere other than this process (see `Workspace`). */
export interface CommandRunner {
  run(request: CommandRequest): Promise<CommandOutcome>;
}
