import { execFileSync } from "node:child_process";

/**
 * Whether git is on the PATH: workspace snapshots (revert, unrevert) need it, so the tests of them
 * are skipped on a machine without it rather than failing there.
 */
export const hasGit: boolean = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Runs git in `cwd` with a committer identity of its own (a test machine may have none), giving its output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });
}
