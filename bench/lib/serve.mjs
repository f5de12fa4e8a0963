// Starting `arbor serve` as its own process, as a user does, for the sections that measure a whole server.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO } from "./env.mjs";

export const ARBOR_BIN = join(REPO, "packages/cli/bin/arbor.js");

/** This process's environment without ARBOR_* settings (they would change the server under test), ARBOR_HOME set. */
export function serveEnv(home) {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ARBOR_"))), ARBOR_HOME: home };
}

/**
 * Starts `arbor serve --port 0 --json <args>` and resolves once it listens, with its URL, the child, a promise of
 * its exit and the tail of its stderr. `nodeArgs` go to Node before the script (e.g. `--cpu-prof`); `bin` is
 * another build's `arbor.js`, to compare two builds on the same machine minutes apart.
 */
export function startServe({ args, home, nodeArgs = [], bin = ARBOR_BIN }) {
  return startListening([...nodeArgs, bin, "serve", "--port", "0", "--json", ...args], serveEnv(home));
}

/**
 * Starts `node <argv>`, a server that prints `{"url": …}` on a line once it listens (as `arbor serve --json`
 * does), and resolves then, as `startServe` does.
 */
export function startListening(argv, env = process.env) {
  const child = spawn(process.execPath, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b) => {
    stderr = (stderr + b.toString("utf8")).slice(-4000);
  });
  const exited = new Promise((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (b) => {
      out += b.toString("utf8");
      if (out.endsWith("\n")) resolve({ url: JSON.parse(out).url, child, exited, stderr: () => stderr });
    });
    child.on("close", (code) => reject(new Error(`${argv.at(-1)} exited (${code}) before listening: ${stderr}`)));
  });
}
