import { homedir } from "node:os";
import { run } from "./cli.js";

// `arbor sessions tree <id> | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

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
  // Touched only by `import -`: creating process.stdin early would open a terminal for no reason.
  stdin: { [Symbol.asyncIterator]: () => process.stdin[Symbol.asyncIterator]() },
  env: process.env,
  homedir: homedir(),
});
