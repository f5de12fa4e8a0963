import type { ShellVerdict } from "./shell-policy.js";

/** Calls that hand a string to the shell; the string literal right after the parenthesis is checked as a shell line. */
const SHELL_CALLS =
  /\b(?:os\.(?:system|popen)|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput))\(\s*[rbf]?("""|'''|"|')([\s\S]*?)\1/g;
/** A recursive delete of the root or the home folder from Python. */
const RMTREE_ROOT =
  /\bshutil\.rmtree\(\s*(?:[rbf]?(["'])(?:\/|~|\/home|\/root|\/etc|\/usr)\/?\1|os\.path\.expanduser\(\s*(["'])~\/?\2\s*\)|(?:pathlib\.)?Path\.home\(\)|os\.environ\[\s*(["'])HOME\3\s*\])/;

/**
 * What the gateway can see of a Python call's intent without running it: the literal shell lines it
 * hands to `os.system` and `subprocess` (checked like a bash command by `checkLine`), and a
 * `shutil.rmtree` of the root or the home folder. Code that builds its commands at run time is not seen.
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
  for (const match of code.matchAll(SHELL_CALLS)) {
    const verdict = await checkLine(match[2] ?? "");
    if (verdict) return verdict;
  }
  return undefined;
}
