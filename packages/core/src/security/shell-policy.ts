import { homedir } from "node:os";
import { isAbsolute, relative, resolve } from "node:path";
import type { ShellAnalysis, ShellCommand, ShellParser } from "../tools/shell-commands.js";
import { type CompiledRule, STRUCTURAL_RULES, type StructuralRuleId } from "./rules.js";

/** Why a shell line is refused: the rule's id and the reason the model is told. */
export interface ShellVerdict {
  rule: string;
  reason: string;
}

export interface ShellPolicyOptions {
  parser: ShellParser;
  /** `command` rules in force (built-in and the user's, minus the disabled ones). */
  rules: readonly CompiledRule[];
  /** Structural checks turned off by id. */
  disabled: ReadonlySet<string>;
  /** Folders outside the workspace a redirection may still write to (the temp folder, say). */
  writeRoots: readonly string[];
}

/** Wrappers that run the command after them: the command they wrap is what is checked. */
const WRAPPERS = new Set(["sudo", "doas", "env", "nohup", "time", "nice", "command", "builtin", "exec", "xargs", "timeout"]);
const SHELLS = /^(ba|z|k|da|fi|c|tc)?sh$|^(python[0-9.]*|perl|ruby|node|php)$/;
const DOWNLOADERS = /^(curl|wget|fetch|aria2c)$/;
const SUBSTITUTED_DOWNLOAD = /(<\(|\$\(|`)\s*(curl|wget)\b/;
/** Targets a recursive delete must never reach: the root, home, and the system's own folders. */
const PROTECTED = new Set([
  "/",
  "~",
  "$HOME",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal shell word, not a template
  "${HOME}",
  "/home",
  "/root",
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/var",
  "/boot",
  "/opt",
  "/sys",
  "/proc",
  "/dev",
  "/srv",
  "/mnt",
]);
const NESTED_DEPTH = 3;

/**
 * Checks one shell line against the rules: a verdict when it is refused, undefined when it may run
 * (then the permission layer still decides, as for any command). Lines given to `bash -c`, `sh -c`
 * and `eval` are checked as well, a few levels deep, so wrapping a command in a string hides nothing.
 */
export async function checkShell(
  options: ShellPolicyOptions,
  line: string,
  cwd: string,
  workdir: string,
  depth = 0,
): Promise<ShellVerdict | undefined> {
  const analysis = await options.parser.analyze(line);
  const texts = [line, ...analysis.commands.map((c) => c.text)];
  for (const rule of options.rules) {
    if (texts.some((text) => rule.match.test(text))) return { rule: rule.id, reason: rule.reason };
  }
  const structural = structuralVerdict(options, analysis, line, cwd, workdir);
  if (structural) return structural;
  if (depth >= NESTED_DEPTH) return undefined;
  for (const inner of nestedLines(analysis)) {
    const verdict = await checkShell(options, inner, cwd, workdir, depth + 1);
    if (verdict) return verdict;
  }
  return undefined;
}

function structuralVerdict(
  options: ShellPolicyOptions,
  analysis: ShellAnalysis,
  line: string,
  cwd: string,
  workdir: string,
): ShellVerdict | undefined {
  const on = (id: StructuralRuleId) => !options.disabled.has(id);
  const verdict = (id: StructuralRuleId): ShellVerdict => ({ rule: id, reason: STRUCTURAL_RULES[id] });
  const commands = analysis.commands.map(unwrap);
  if (on("recursive-delete-root") && commands.some(deletesProtected)) return verdict("recursive-delete-root");
  if (on("download-to-shell")) {
    const piped = analysis.pipelines.some((stages) => {
      const programs = stages.map((stage) => base(unwrapWords(stage.trim().split(/\s+/))[0] ?? ""));
      const first = programs.findIndex((program) => DOWNLOADERS.test(program));
      return first !== -1 && programs.slice(first + 1).some((program) => SHELLS.test(program));
    });
    const substituted = commands.some(
      (argv) =>
        (SHELLS.test(base(argv[0] ?? "")) || argv[0] === "eval" || argv[0] === "source" || argv[0] === ".") &&
        SUBSTITUTED_DOWNLOAD.test(argv.join(" ")),
    );
    if (piped || substituted || (analysis.kind === "unparsed" && /\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?\S*sh\b/.test(line))) {
      return verdict("download-to-shell");
    }
  }
  if (on("write-outside-workspace")) {
    const targets = [
      ...analysis.writes.map((w) => w.target),
      ...commands
        .filter((argv) => base(argv[0] ?? "") === "tee")
        .flatMap((argv) => argv.slice(1).filter((a) => !a.startsWith("-"))),
    ];
    if (targets.some((target) => outside(target, cwd, workdir, options.writeRoots))) return verdict("write-outside-workspace");
  }
  return undefined;
}

/** The command a wrapper runs (`sudo -u x rm …` is `rm …`); variable assignments in front are skipped. */
function unwrap(command: ShellCommand): string[] {
  return unwrapWords(command.argv);
}

/** Options of the wrappers that take a value (`sudo -u root`), so the value is not taken for the command. */
const VALUED = /^-[ugCDprtUhn]$/;

function unwrapWords(words: readonly string[]): string[] {
  let argv = [...words];
  for (let guard = 0; guard < 4 && argv.length > 0 && WRAPPERS.has(base(argv[0] ?? "")); guard++) {
    let i = 1;
    while (i < argv.length && (argv[i]!.startsWith("-") || argv[i]!.includes("=") || /^\d+[smhd]?$/.test(argv[i]!))) {
      i += VALUED.test(argv[i]!) ? 2 : 1;
    }
    argv = argv.slice(i);
  }
  return argv;
}

function deletesProtected(argv: readonly string[]): boolean {
  if (base(argv[0] ?? "") !== "rm") return false;
  const flags = argv.slice(1).filter((a) => a.startsWith("-"));
  if (flags.includes("--no-preserve-root")) return true;
  const recursive = flags.some((f) => f === "--recursive" || (!f.startsWith("--") && /[rR]/.test(f)));
  return recursive && argv.slice(1).some((a) => !a.startsWith("-") && PROTECTED.has(normalizeTarget(a)));
}

/** `"$HOME"/*`, `~/`, `/.` and the like, reduced to the folder they name. */
function normalizeTarget(arg: string): string {
  let target = arg.replace(/^["']|["']$/g, "").replace(/"/g, "");
  target = target.replace(/(\/\*|\/\.|\/)+$/, "");
  if (target === "" || target === "/*") return "/";
  return target;
}

function outside(written: string, cwd: string, workdir: string, roots: readonly string[]): boolean {
  const target = written.replace(/"/g, "");
  if (/^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/.test(target)) return false;
  let path: string;
  if (/^(~|\$HOME|\$\{HOME\})(\/|$)/.test(target)) path = resolve(homedir(), target.replace(/^[^/]*\/?/, ""));
  else if (target.includes("$") || target.includes("`"))
    return false; // unknown until run: the permission ask covers it
  else path = isAbsolute(target) ? resolve(target) : resolve(workdir, target);
  return ![cwd, ...roots].some((root) => within(resolve(root), path));
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function base(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

/** The literal lines handed to `bash -c`, `sh -c` or `eval`. */
function nestedLines(analysis: ShellAnalysis): string[] {
  const lines: string[] = [];
  for (const command of analysis.commands) {
    const argv = unwrap(command);
    const program = base(argv[0] ?? "");
    if (program === "eval") lines.push(argv.slice(1).join(" "));
    else if (/^(ba|z|k|da)?sh$/.test(program)) {
      const flag = argv.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      if (flag !== -1 && argv[flag + 1] !== undefined) lines.push(argv[flag + 1]!);
    }
  }
  return lines;
}
