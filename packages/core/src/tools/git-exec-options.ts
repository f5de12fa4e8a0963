/**
 * Git options that make git run a program the command line does not name: a rule allowing `git *`
 * vouches for git, not for `git -c alias.x='!rm -rf ~' x`, `git -c core.pager=… log`,
 * `git fetch --upload-pack=…` or a clone through the `ext::` transport. Pure: it reads a parsed
 * argv (`shell-commands.ts`) and names the first such option, which `askToRun` asks for apart.
 */

/** Config keys whose value git runs as a command (exact, lower-cased). */
const COMMAND_KEYS = new Set([
  "core.pager",
  "core.editor",
  "core.sshcommand",
  "core.hookspath",
  "core.fsmonitor",
  "core.gitproxy",
  "core.askpass",
  "credential.helper",
  "diff.external",
  "sequence.editor",
  "gpg.program",
  "uploadpack.packobjectshook",
  "protocol.allow",
  "protocol.ext.allow",
]);

/** Config keys `<section>.<name>.<key>` whose value git runs (filters, diff and merge drivers, remotes, …). */
const COMMAND_SUBKEYS: ReadonlyArray<[section: string, key: string]> = [
  ["filter", "clean"],
  ["filter", "smudge"],
  ["filter", "process"],
  ["diff", "textconv"],
  ["diff", "command"],
  ["merge", "driver"],
  ["remote", "uploadpack"],
  ["remote", "receivepack"],
  ["remote", "proxy"],
  ["gpg", "program"],
  ["credential", "helper"],
  ["difftool", "cmd"],
  ["mergetool", "cmd"],
  ["url", "insteadof"],
  ["url", "pushinsteadof"],
];

/** Long options (any subcommand) whose value is a program git starts, or a place hooks come from. */
const COMMAND_OPTIONS = new Set(["--upload-pack", "--receive-pack", "--exec", "--template", "--extcmd", "--exec-path"]);

/** Subcommands (with the option that makes them run a command, or "*" when they always do). */
const COMMAND_SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  "filter-branch": new Set(["*"]),
  bisect: new Set(["run"]),
  submodule: new Set(["foreach"]),
  rebase: new Set(["-x", "--exec"]),
  difftool: new Set(["-x", "--extcmd"]),
  "fetch-pack": new Set(["--exec"]),
  "send-pack": new Set(["--exec"]),
  archive: new Set(["--exec"]),
  "ls-remote": new Set(["-u"]),
  clone: new Set(["-u"]),
};

/** Why `argv` (a git command line) may run another program; undefined when it cannot, or is not git. */
export function gitRunsCommand(argv: readonly string[]): string | undefined {
  const program = argv[0];
  if (program === undefined || !/(^|\/)git$/.test(program)) return undefined;
  let subcommand: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === "-c" || arg === "--config") {
      const reason = next === undefined ? undefined : configRuns(next);
      if (reason) return reason;
      i++;
      continue;
    }
    if (arg.startsWith("-c") && arg.length > 2 && subcommand === undefined) {
      const reason = configRuns(arg.slice(2));
      if (reason) return reason;
      continue;
    }
    if (arg.startsWith("--config=")) {
      const reason = configRuns(arg.slice("--config=".length));
      if (reason) return reason;
      continue;
    }
    if (arg === "--config-env" || arg.startsWith("--config-env=")) return "--config-env sets config from the environment";
    const option = arg.split("=", 1)[0]!;
    if (COMMAND_OPTIONS.has(option)) return `${option} names a program git runs`;
    if (/^["']?ext::/i.test(arg)) return "the ext:: transport runs a command";
    if (subcommand === undefined && !arg.startsWith("-")) {
      subcommand = arg;
      if (COMMAND_SUBCOMMANDS[arg]?.has("*")) return `git ${arg} runs commands`;
      continue;
    }
    if (subcommand !== undefined && COMMAND_SUBCOMMANDS[subcommand]?.has(option))
      return `git ${subcommand} ${option} runs a command`;
  }
  return undefined;
}

/** Why a `key=value` config override runs a program; undefined when it does not. */
function configRuns(written: string): string | undefined {
  // An argv word is left as written when it is not a plain literal (`alias.x="!cmd"`): drop its quotes.
  const assignment = written.replace(/["']/g, "");
  const eq = assignment.indexOf("=");
  const key = (eq < 0 ? assignment : assignment.slice(0, eq)).toLowerCase();
  const value = eq < 0 ? "" : assignment.slice(eq + 1);
  if (key.startsWith("alias.") && value.trimStart().startsWith("!")) return `-c ${key} runs a shell command`;
  if (key.startsWith("pager.")) return `-c ${key} names a program git runs`;
  if (COMMAND_KEYS.has(key)) return `-c ${key} names a program git runs`;
  const parts = key.split(".");
  const [section, last] = [parts[0], parts.at(-1)];
  if (parts.length >= 3 && COMMAND_SUBKEYS.some(([s, k]) => s === section && k === last)) {
    return `-c ${key} names a program git runs`;
  }
  return undefined;
}
