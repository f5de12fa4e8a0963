import type { Io } from "../../src/io.js";

export interface CapturedIo extends Io {
  out(): string;
  err(): string;
}

/** An Io that records what a command prints; `stdin` yields `input`. */
export function captureIo(
  opts: { env?: Record<string, string | undefined>; homedir?: string; input?: string; tty?: boolean } = {},
): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  const input = opts.input ?? "";
  return {
    stdout: { write: (t) => void out.push(t), isTTY: opts.tty ?? false },
    stderr: { write: (t) => void err.push(t), isTTY: false },
    stdin: (async function* () {
      if (input) yield input;
    })(),
    env: opts.env ?? {},
    homedir: opts.homedir ?? "/nonexistent-home",
    out: () => out.join(""),
    err: () => err.join(""),
  };
}
