import { isAbsolute, join } from "node:path";
import { gitRunsCommand } from "../git-exec-options.js";
import { editablePath } from "../paths.js";
import type { ShellAnalysis } from "../shell-commands.js";
import type { ToolContext } from "../tool.js";

/** Redirection targets that are streams, not files in anybody's workspace. */
const STREAMS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/**
 * The pattern a command line that could not be parsed is asked under, besides its text: a rule
 * for a program (`git *`) cannot vouch for what it cannot see, so only a rule for every command
 * (`*`) or for this marker decides it; a deny for its text still denies.
 */
export const UNPARSED_PREFIX = "(unparsed) ";

/**
 * Likewise for a git command whose options make git run another program (`-c alias.x=!…`,
 * `--upload-pack`, …, see `git-exec-options.ts`): a `git *` rule does not vouch for it.
 */
export const RUNS_COMMAND_PREFIX = "(git runs a command) ";

/**
 * Asks to run `command`: every simple command in it must be allowed under `bash` (an "always"
 * approves each one's exact text, as shown, never its program with any arguments), and every file a redirection writes is an `edit` of that file,
 * with the `external_directory` ask when it lies outside the workspace. Targets are taken from
 * where the command starts (`workdir`); a `cd` inside the command line is not followed.
 */
export async function askToRun(ctx: ToolContext, command: string, analysis: ShellAnalysis, workdir: string): Promise<void> {
  const metadata = { command };
  if (analysis.kind === "unparsed") {
    const marked = `${UNPARSED_PREFIX}${command}`;
    await ctx.ask({ permission: "bash", patterns: [command, marked], always: [marked], metadata });
    return;
  }
  const patterns =
    analysis.commands.length > 0
      ? unique(
          analysis.commands.flatMap((c) => (gitRunsCommand(c.argv) ? [c.text, `${RUNS_COMMAND_PREFIX}${c.text}`] : [c.text])),
        )
      : [command];
  await ctx.ask({ permission: "bash", patterns, metadata });
  for (const write of analysis.writes) {
    if (!write.literal) {
      await ctx.ask({ permission: "edit", patterns: [write.target], metadata: { ...metadata, tool: "bash" } });
      continue;
    }
    if (STREAMS.test(write.target)) continue;
    const target = isAbsolute(write.target) || write.target.startsWith("~") ? write.target : join(workdir, write.target);
    await editablePath(ctx, target, "bash", metadata);
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
