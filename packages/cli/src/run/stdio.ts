import { Readable, Writable } from "node:stream";
import type { Io } from "../io.js";

/** The pipes a stdio protocol server (MCP, ACP) speaks over, and when to stop. */
export interface StdioPipes {
  input: Readable;
  output: Writable;
  /** Settles on Ctrl-C (SIGINT/SIGTERM as the process reports them). */
  stop: Promise<void>;
}

/**
 * Serves a protocol over the process's stdin and stdout until `serve` returns: stdout carries only
 * the protocol's messages (diagnostics go to stderr), and Ctrl-C settles `stop` so the server ends
 * its session cleanly before the caller closes its runtimes.
 */
export async function serveOverStdio(io: Io, serve: (pipes: StdioPipes) => Promise<void>): Promise<void> {
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stdout.write(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      done();
    },
  });
  let release: (() => void) | undefined;
  const stop = new Promise<void>((resolve) => {
    release = io.onInterrupt?.(() => resolve());
  });
  try {
    await serve({ input: Readable.from(io.stdin), output, stop });
  } finally {
    release?.();
  }
}
