import { homedir } from "node:os";
import { dirname, isAbsolute, posix, relative, resolve } from "node:path";
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
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "nohup",
  "time",
  "nice",
  "ionice",
  "command",
  "builtin",
  "exec",
  "xargs",
  "timeout",
  "setsid",
  "stdbuf",
  "busybox",
  "toybox",
]);
/** Interpreters whose `-e`/`-c` code is read for the shell lines it hands on. */
const INTERPRETERS = /^(perl|ruby|node|nodejs|php|python[0-9.]*|bun|deno)$/;
/** String literals in interpreter code: Perl's q{…}/qq{…}, quotes and backquotes. */
const CODE_STRINGS = /qq?\{([^}]*)\}|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`([^`]*)`/g;
/** Programs that destroy the files they are given, beyond recovery. */
const DESTROYERS = /^(shred|srm|wipe)$/;
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
  if (on("recursive-delete-root") && (commands.some(deletesProtected) || xargsDeletesProtected(analysis))) {
    return verdict("recursive-delete-root");
  }
  if (on("kill-everything") && commands.some(killsEverything)) return verdict("kill-everything");
  if (
    on("destroy-outside-workspace") &&
    commands.some(
      (argv) =>
        DESTROYERS.test(base(argv[0] ?? "")) &&
        argv
          .slice(1)
          .some((a) => !a.startsWith("-") && !/^\d+$/.test(a) && outside(dequote(a), cwd, workdir, options.writeRoots)),
    )
  ) {
    return verdict("destroy-outside-workspace");
  }
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

/** The command a wrapper runs (`sudo -u x rm …` is `rm …`), its words dequoted; variable assignments in front are skipped. */
function unwrap(command: ShellCommand): string[] {
  return unwrapWords(command.argv.map(dequote));
}

/** `echo / | xargs rm -rf`: a recursive delete whose targets come from an earlier stage naming a protected folder. */
function xargsDeletesProtected(analysis: ShellAnalysis): boolean {
  return analysis.pipelines.some((stages) =>
    stages.some((stage, i) => {
      const words = stage.trim().split(/\s+/).map(dequote);
      if (base(words[0] ?? "") !== "xargs" || !recursiveDelete(unwrapWords(words))) return false;
      return stages.slice(0, i).some((earlier) => earlier.trim().split(/\s+/).slice(1).some(isProtected));
    }),
  );
}

/** `kill -9 -1` (and `-s KILL -1`, `-- -1`): a signal to every process the user may signal. */
function killsEverything(argv: readonly string[]): boolean {
  if (base(argv[0] ?? "") !== "kill") return false;
  const args = argv.slice(1);
  // The first word may be the signal (`kill -1 123` sends signal 1); `-1` after it, or after `--`, is the pid.
  const start = args[0] === "-s" || args[0] === "-n" ? 2 : args[0]?.startsWith("-") && args[0] !== "--" ? 1 : 0;
  return args.slice(start).some((a, i, rest) => a === "-1" || (a === "--" && rest[i + 1] === "-1"));
}

/** Options of each wrapper that take a value (`sudo -u root`, `xargs -n 1`), so the value is not taken for the command. */
const VALUED: Readonly<Record<string, RegExp>> = {
  sudo: /^-[ugCDprtUh]$/,
  doas: /^-[uC]$/,
  env: /^-[uCS]$/,
  nice: /^-n$/,
  ionice: /^-[cnp]$/,
  xargs: /^-[adEILnPs]$/,
  timeout: /^-[sk]$/,
  stdbuf: /^-[ioe]$/,
};

function unwrapWords(words: readonly string[]): string[] {
  let argv = [...words];
  for (let guard = 0; guard < 4 && argv.length > 0 && WRAPPERS.has(base(argv[0] ?? "")); guard++) {
    const valued = VALUED[base(argv[0] ?? "")];
    let i = 1;
    while (i < argv.length && (argv[i]!.startsWith("-") || argv[i]!.includes("=") || /^\d+[smhd]?$/.test(argv[i]!))) {
      i += valued?.test(argv[i]!) ? 2 : 1;
    }
    argv = argv.slice(i);
  }
  return argv;
}

/** Whether `argv` is a recursive delete (`rm -r`, `-R`, `--recursive`, or `--no-preserve-root`). */
function recursiveDelete(argv: readonly string[]): boolean {
  if (base(argv[0] ?? "") !== "rm") return false;
  const flags = argv.slice(1).filter((a) => a.startsWith("-"));
  return (
    flags.includes("--no-preserve-root") || flags.some((f) => f === "--recursive" || (!f.startsWith("--") && /[rR]/.test(f)))
  );
}

function deletesProtected(argv: readonly string[]): boolean {
  if (!recursiveDelete(argv)) return false;
  if (argv.includes("--no-preserve-root")) return true;
  return argv.slice(1).some((a) => !a.startsWith("-") && isProtected(a));
}

/**
 * Whether a path names the root, a system folder, the home folder or a folder above it, after the
 * shell would have expanded `~` and `$HOME` and the path is normalised (`/usr/../`, `//`, `/./`,
 * `$HOME/..`, a trailing `/*`).
 */
function isProtected(arg: string): boolean {
  let target = dequote(arg);
  const home = homedir();
  target = target.replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, home);
  if (!target.startsWith("/")) return PROTECTED.has(target);
  target = posix.normalize(target).replace(/(\/\*|\/\.)+$/, "");
  if (target.length > 1) target = target.replace(/\/+$/, "");
  if (target === "" || target === "/*") target = "/";
  return PROTECTED.has(target) || above(target, home);
}

/** Whether `path` is `home` or a folder above it (`/home` for `/home/me`). */
function above(path: string, home: string): boolean {
  for (let dir = home; ; dir = dirname(dir)) {
    if (dir === path) return true;
    if (dir === dirname(dir)) return false;
  }
}

/** A word as the shell passes it on: backslash escapes and quotes removed (`\rm`, `r""m`, `'rm'`). */
function dequote(word: string): string {
  return word.replace(/\\(.)/g, "$1").replace(/["']/g, "");
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

/**
 * The literal lines handed to `bash -c`, `sh -c` or `eval`, and those in an interpreter's `-e`/`-c`
 * code (`perl -e "system(q{rm -rf /})"`): each string literal in it, and all of them joined, so a
 * command given as a list (`["rm", "-rf", "/"]`) reads as one line.
 */
function nestedLines(analysis: ShellAnalysis): string[] {
  const lines: string[] = [];
  for (const command of analysis.commands) {
    const words = unwrapWords(command.argv);
    const program = base(dequote(words[0] ?? ""));
    if (program === "eval") lines.push(words.slice(1).map(dequote).join(" "));
    else if (/^(ba|z|k|da)?sh$/.test(program)) {
      const flag = words.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      if (flag !== -1 && words[flag + 1] !== undefined) lines.push(shellWord(words[flag + 1]!));
    } else if (INTERPRETERS.test(program)) {
      const flag = words.findIndex((a) => /^-[a-zA-Z]*[ecE]$/.test(a));
      const code = flag === -1 ? undefined : words[flag + 1];
      if (code !== undefined) lines.push(...codeStrings(shellWord(code)));
    }
  }
  return lines;
}

/** A word's value: the argv holds plain literals unquoted and other words as written. */
function shellWord(word: string): string {
  if (/^'[^']*'$/.test(word)) return word.slice(1, -1);
  if (/^"(?:[^"\\]|\\.)*"$/.test(word)) return word.slice(1, -1).replace(/\\(["\\$`])/g, "$1");
  return word;
}

/** The string literals of interpreter code, each and all joined. */
export function codeStrings(code: string): string[] {
  const strings = [...code.matchAll(CODE_STRINGS)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").replace(/\\(.)/g, "$1"));
  return strings.length > 1 ? [...strings, strings.join(" ")] : strings;
}
