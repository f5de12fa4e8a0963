import { homedir } from "node:os";
import { createInterface } from "node:readline";
import { isatty } from "node:tty";
import { run } from "./cli.js";
import { interruptHook } from "./interrupts.js";

// `arbor sessions tree <id> | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

/** One line from the terminal; undefined at end of input or when `signal` aborts. */
function promptTerminal(question: string, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let settled = false;
    const settle = (answer: string | undefined) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      rl.close();
      resolve(answer);
    };
    const onAbort = () => settle(undefined);
    if (signal?.aborted) return settle(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
    // The terminal is in raw mode while asking, so Ctrl-C reaches readline, not the process: pass it on.
    rl.on("SIGINT", () => {
      process.stderr.write("\n");
      process.emit("SIGINT", "SIGINT");
    });
    rl.on("close", () => settle(undefined));
    rl.question(question, (answer) => settle(answer));
  });
}

process.exitCode = await run(process.argv.slice(2), {
  stdout: {
    write: (text) => void process.stdout.write(text),
    isTTY: process.stdout.isTTY === true,
    columns: process.stdout.columns,
  },
  stderr: {
    write: (text) => void process.stderr.write(text),
    isTTY: process.stderr.isTTY === true,
    columns: process.stderr.columns,
  },
  // Touched only by `import -` and prompts: creating process.stdin early would open a terminal for no reason.
  stdin: { [Symbol.asyncIterator]: () => process.stdin[Symbol.asyncIterator]() },
  env: process.env,
  homedir: homedir(),
  cwd: process.cwd(),
  prompt: isatty(0) ? promptTerminal : undefined,
  onInterrupt: interruptHook(process, (code) => process.exit(code)),
  exit: (code) => process.exit(code),
});
