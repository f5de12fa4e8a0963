import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Runs a fixture of test/fixtures (`node <fixture> ...args`) until it prints its first line (the
 * fixtures print "<session-id> <ask-or-plan-id>" once their run waits on an ask), then kills it with
 * SIGKILL: the ask is left in the store exactly as a crashed process leaves it. Returns the line's words.
 */
export async function askThenKill(fixture: string, args: readonly string[]): Promise<string[]> {
  const file = fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url));
  const child = spawn(process.execPath, [file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.on("close", resolve));
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.on("close", () => reject(new Error(`the process ended before its run asked: ${out}`)));
  });
  child.kill("SIGKILL");
  await exited;
  return line.split(" ");
}
