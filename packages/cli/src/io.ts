/**
 * Everything the CLI touches outside itself, passed in so that `run` can be driven by tests and by
 * `main.ts` alike. Nothing here is global: each call of `run` gets its own.
 */
export interface Output {
  write(text: string): void;
  /** True when the stream is a terminal: styling and width-aware layout are used only then. */
  readonly isTTY: boolean;
  /** Terminal width when known. */
  readonly columns?: number | undefined;
}

export interface Io {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory: the default store lives in `~/.arbor`. */
  readonly homedir: string;
  /** Where relative paths on the command line start (default: the process's current directory). */
  readonly cwd?: string | undefined;
  /**
   * Asks the person at the terminal and resolves their answer, or undefined at end of input or when
   * `signal` aborts. Absent when stdin is not a terminal: nobody can answer.
   */
  readonly prompt?: ((question: string, signal?: AbortSignal) => Promise<string | undefined>) | undefined;
  /**
   * Sends Ctrl-C to `handler` instead of ending the process, until the returned function is called.
   * A second Ctrl-C ends the process at once (exit 130).
   */
  readonly onInterrupt?: ((handler: () => void) => () => void) | undefined;
  /**
   * Ends the process at once with this code. Only a cluster instance's shutdown uses it: the runs it
   * handed to other instances must not go on writing here. Absent in tests that drive `run`.
   */
  readonly exit?: ((code: number) => void) | undefined;
}

export function writeLines(out: Output, lines: readonly string[]): void {
  if (lines.length > 0) out.write(`${lines.join("\n")}\n`);
}

export function writeJson(out: Output, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}
