import { execFileSync } from "node:child_process";
import { hidden } from "./probe.js";

export type SandboxTarget = { kind: "bwrap"; path: string; source: string } | { kind: "none"; reason: string };

/**
 * The bubblewrap the sandbox suites confine with: ARBOR_TEST_BWRAP, else `bwrap` on the PATH, if it
 * can actually make namespaces here (a container without user namespaces cannot).
 * `ARBOR_TEST_HIDE=sandbox` acts as if there were none.
 */
export function resolveSandbox(env: NodeJS.ProcessEnv): SandboxTarget {
  if (hidden(env, "sandbox")) return { kind: "none", reason: "hidden by ARBOR_TEST_HIDE" };
  const path = env.ARBOR_TEST_BWRAP || "bwrap";
  try {
    execFileSync(
      path,
      ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--dev", "/dev", "--proc", "/proc", "true"],
      {
        stdio: "pipe",
        timeout: 10_000,
      },
    );
  } catch (err) {
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    return { kind: "none", reason: `bubblewrap cannot run here (${why.split("\n")[0]})` };
  }
  return { kind: "bwrap", path, source: path === "bwrap" ? "bwrap on the PATH" : `ARBOR_TEST_BWRAP=${path}` };
}
