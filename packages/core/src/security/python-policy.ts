import { codeStrings, type ShellVerdict } from "./shell-policy.js";

/** A recursive delete of the root or the home folder from Python. */
const RMTREE_ROOT =
  /\bshutil\.rmtree\(\s*(?:[rbf]?(["'])(?:\/|~|\/home|\/root|\/etc|\/usr)\/?\1|os\.path\.expanduser\(\s*(["'])~\/?\2\s*\)|(?:pathlib\.)?Path\.home\(\)|os\.environ\[\s*(["'])HOME\3\s*\])/;

/** The functions of `os` and `subprocess` that run a command, by module. */
const RUNNERS: Readonly<Record<string, readonly string[]>> = {
  os: ["system", "popen", "execv", "execve", "execvp", "execvpe", "execl", "execlp", "spawnv", "spawnvp", "spawnl", "spawnlp"],
  subprocess: ["run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"],
  pty: ["spawn"],
};

/**
 * The names code calls a command runner by: `os.system`, a module imported under another name
 * (`import subprocess as sp` → `sp.run`), or a function imported by name (`from os import system as x`).
 */
function runnerNames(code: string): string[] {
  const names: string[] = [];
  for (const [module, functions] of Object.entries(RUNNERS)) {
    const aliases = [module];
    for (const m of code.matchAll(new RegExp(`\\bimport\\s+${module}\\s+as\\s+(\\w+)`, "g"))) aliases.push(m[1]!);
    for (const alias of aliases) names.push(...functions.map((f) => `${alias}\\.${f}`));
    for (const m of code.matchAll(new RegExp(`\\bfrom\\s+${module}\\s+import\\s+([^\\n]+)`, "g"))) {
      for (const part of m[1]!.replace(/[()]/g, "").split(",")) {
        const [name, alias] = part.trim().split(/\s+as\s+/);
        if (name && functions.includes(name)) names.push(alias ?? name);
      }
    }
  }
  return names;
}

/** The text of each call of one of `names`, up to its closing parenthesis (balanced, strings skipped). */
function callArguments(code: string, names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const out: string[] = [];
  const start = new RegExp(`(?<![\\w.])(?:${names.join("|")})\\s*\\(`, "g");
  for (const m of code.matchAll(start)) {
    let depth = 1;
    let i = m.index + m[0].length;
    let quote: string | undefined;
    for (; i < code.length && depth > 0; i++) {
      const ch = code[i]!;
      if (quote) {
        if (ch === "\\") i++;
        else if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === "(" || ch === "[") depth++;
      else if (ch === ")" || ch === "]") depth--;
    }
    out.push(code.slice(m.index + m[0].length, i - 1));
  }
  return out;
}

/**
 * What the gateway can see of a Python call's intent without running it: the literal command each
 * call of `os`, `subprocess` or `pty` runners is given — a string, or a list of strings read as one
 * line (`["rm", "-rf", "/"]`), whatever name the runner was imported under — checked like a bash
 * command by `checkLine`, and a `shutil.rmtree` of the root or the home folder. Code that builds
 * its commands at run time (from variables, joins, `getattr`) is not seen.
 */
export async function checkPython(
  code: string,
  checkLine: (line: string) => Promise<ShellVerdict | undefined>,
): Promise<ShellVerdict | undefined> {
  if (RMTREE_ROOT.test(code)) {
    return {
      rule: "recursive-delete-root",
      reason: "it deletes recursively from the file-system root, the home folder or a system folder",
    };
  }
  for (const args of callArguments(code, runnerNames(code))) {
    // exec-style calls name the program twice (`execvp("rm", ["rm", …])`): the list alone is the line.
    const list = /\[([^\]]*)\]/.exec(args)?.[1];
    for (const line of codeStrings(list ?? args)) {
      const verdict = await checkLine(line);
      if (verdict) return verdict;
    }
  }
  return undefined;
}
