/**
 * The git runner's child process: it starts git for the process that forked it. Creating a process
 * forks its parent, and a fork of this small process costs far less than one of a big server, whose
 * event loop would stall meanwhile. Requests come over the IPC channel; each is answered with what
 * git printed and how it ended. Run as a script (by `GitRunner`), never imported: builtins only, and
 * only erasable type syntax, so Node runs the source file as it is when the build is not there.
 */
import { execFile } from "node:child_process";

interface Request {
  id: number;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  input?: string;
  maxBuffer: number;
}

process.on("message", (message: Request) => {
  const { id, args, cwd, env, input, maxBuffer } = message;
  const child = execFile("git", args, { env, cwd, maxBuffer }, (error, stdout, stderr) => {
    const errno = error ? (error as NodeJS.ErrnoException).code : undefined;
    process.send?.({
      id,
      stdout,
      stderr,
      ...(error ? { error: { message: error.message, ...(typeof errno === "string" ? { code: errno } : {}) } } : {}),
    });
  });
  // A write to a git that already exited is reported by its exit, not thrown here.
  child.stdin?.on("error", () => {});
  if (input !== undefined) child.stdin?.end(input);
});
// The parent closed the channel or died: nothing more will be asked.
process.on("disconnect", () => process.exit(0));
