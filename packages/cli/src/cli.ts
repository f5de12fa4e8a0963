import { flag, looseWords, type OptionDefs, parseCommandLine, stringOption, wantsJson } from "./args.js";
import { acpCommand } from "./commands/acp.js";
import { approvalsGroup } from "./commands/approvals.js";
import { approveCommand } from "./commands/approve.js";
import { chatCommand } from "./commands/chat.js";
import { type Command, type CommandGroup, STORE_OPTIONS, type TopCommand } from "./commands/command.js";
import { compactCommand } from "./commands/compact.js";
import { demoCommand } from "./commands/demo.js";
import { kbGroup } from "./commands/kb.js";
import { mcpGroup } from "./commands/mcp.js";
import { revertCommand, unrevertCommand } from "./commands/revert.js";
import { runCommand } from "./commands/run.js";
import { serveCommand } from "./commands/serve.js";
import { sessionsGroup } from "./commands/sessions.js";
import { tokensGroup } from "./commands/tokens.js";
import { EXIT_OK, EXIT_USAGE, reportError, UsageError } from "./errors.js";
import { commandHelp, groupHelp, rootHelp, topCommandHelp, usageOf } from "./help.js";
import { type Io, writeLines } from "./io.js";
import { cliVersion } from "./version.js";

export const TOP_COMMANDS: readonly TopCommand[] = [
  runCommand,
  chatCommand,
  compactCommand,
  revertCommand,
  unrevertCommand,
  approveCommand,
  demoCommand,
  serveCommand,
  acpCommand,
];
export const GROUPS: readonly CommandGroup[] = [sessionsGroup, approvalsGroup, mcpGroup, kbGroup, tokensGroup];

const ROOT_OPTIONS: OptionDefs = {
  help: { type: "boolean", short: "h", description: "Show help." },
  version: { type: "boolean", short: "v", description: "Print the version." },
};

/**
 * Every flag of every command: the first pass over the command line uses it only to tell flags
 * (and the values they take) from the command words; the chosen command then parses strictly
 * with its own flags.
 */
function allOptions(): OptionDefs {
  const all: Record<string, OptionDefs[string]> = { ...ROOT_OPTIONS, ...STORE_OPTIONS };
  for (const c of TOP_COMMANDS) Object.assign(all, c.options);
  for (const g of GROUPS) for (const c of g.commands) Object.assign(all, c.options);
  return all;
}

function names(commands: readonly { name: string }[]): string {
  const n = commands.map((c) => c.name);
  return n.length <= 1 ? n.join("") : `${n.slice(0, -1).join(", ")} or ${n.at(-1)}`;
}

/** The longest known command the words start with, for pointing at its help: `arbor sessions list`. */
function commandName(words: readonly string[]): string {
  const top = TOP_COMMANDS.find((c) => c.name === words[0]);
  if (top) return `arbor ${top.name}`;
  const group = GROUPS.find((g) => g.name === words[0]);
  if (!group) return "arbor";
  const command = group.commands.find((c) => c.name === words[1]);
  return command ? `arbor ${group.name} ${command.name}` : `arbor ${group.name}`;
}

interface Resolved {
  group: CommandGroup;
  command: Command;
}

/** Finds the command the words name, or says what the words could have been. */
function resolveCommand(words: readonly string[]): Resolved {
  const [groupName, commandName] = words;
  const group = GROUPS.find((g) => g.name === groupName);
  if (!group)
    throw new UsageError(
      `unknown command '${groupName}'; the commands are ${names([...TOP_COMMANDS, ...GROUPS])}. Run 'arbor --help' to see them.`,
    );
  if (commandName === undefined) {
    throw new UsageError(`'arbor ${group.name}' needs a command: ${names(group.commands)}. Run 'arbor ${group.name} --help'.`);
  }
  const command = group.commands.find((c) => c.name === commandName);
  if (!command) {
    throw new UsageError(
      `unknown command 'arbor ${group.name} ${commandName}'; the commands are ${names(group.commands)}. Run 'arbor ${group.name} --help'.`,
    );
  }
  return { group, command };
}

/** `arbor help [group [command]]`. */
async function help(io: Io, words: readonly string[]): Promise<number> {
  if (words.length === 0) {
    writeLines(io.stdout, await rootHelp(TOP_COMMANDS, GROUPS, cliVersion()));
    return EXIT_OK;
  }
  const top = TOP_COMMANDS.find((c) => c.name === words[0]);
  if (top) {
    if (words.length > 1) throw new UsageError(`unexpected argument '${words[1]}'. Run 'arbor help ${top.name}'.`);
    writeLines(io.stdout, await topCommandHelp(top));
    return EXIT_OK;
  }
  const group = GROUPS.find((g) => g.name === words[0]);
  if (group && words.length === 1) {
    writeLines(io.stdout, await groupHelp(group));
    return EXIT_OK;
  }
  const { command } = resolveCommand(words);
  if (words.length > 2) throw new UsageError(`unexpected argument '${words[2]}'. Run 'arbor help ${words[0]} ${words[1]}'.`);
  writeLines(io.stdout, await commandHelp(group as CommandGroup, command));
  return EXIT_OK;
}

/**
 * Runs one command line and returns the exit code: 0 ok, 2 bad usage or bad input, 1 any other
 * failure, 130 a run stopped by Ctrl-C. Never throws; every failure is reported on `io` (see
 * `reportError`).
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const json = wantsJson(argv);
  let storeLabel: string | undefined;
  try {
    const first = parseCommandLine(argv, allOptions(), commandName(looseWords(argv, allOptions())));
    const words = first.positionals;
    if (words.length === 0) {
      if (flag(first.values, "version")) {
        io.stdout.write(`${cliVersion()}\n`);
        return EXIT_OK;
      }
      // On a terminal, `arbor` alone opens a chat; in a script it prints the help.
      if (!flag(first.values, "help") && io.prompt !== undefined && io.stdout.isTTY) {
        const parsed = parseCommandLine(argv, { ...chatCommand.options, ...STORE_OPTIONS }, "arbor");
        return await chatCommand.run(io, parsed.values, []);
      }
      const text = await rootHelp(TOP_COMMANDS, GROUPS, cliVersion());
      if (flag(first.values, "help")) {
        writeLines(io.stdout, text);
        return EXIT_OK;
      }
      writeLines(io.stderr, text);
      return EXIT_USAGE;
    }
    if (words[0] === "help") return await help(io, words.slice(1));
    if (flag(first.values, "version")) throw new UsageError("--version takes no command: run 'arbor --version'.");
    if (words.length === 1 && flag(first.values, "help")) {
      const group = GROUPS.find((g) => g.name === words[0]);
      if (group) {
        writeLines(io.stdout, await groupHelp(group));
        return EXIT_OK;
      }
    }

    const top = TOP_COMMANDS.find((c) => c.name === words[0]);
    if (top) {
      const parsed = parseCommandLine(argv, { ...top.options, ...STORE_OPTIONS }, `arbor ${top.name}`);
      if (flag(parsed.values, "help")) {
        writeLines(io.stdout, await topCommandHelp(top));
        return EXIT_OK;
      }
      return await top.run(io, parsed.values, parsed.positionals.slice(1));
    }

    const { group, command } = resolveCommand(words);
    const name = `arbor ${group.name} ${command.name}`;
    const parsed = parseCommandLine(argv, { ...command.options, ...STORE_OPTIONS }, name);
    if (flag(parsed.values, "help")) {
      writeLines(io.stdout, await commandHelp(group, command));
      return EXIT_OK;
    }
    const operands = parsed.positionals.slice(2);
    if (operands.length < (command.requiredOperands ?? command.operands.length)) {
      throw new UsageError(`missing <${command.operands[operands.length]}>. Usage: ${usageOf(group, command)}`);
    }
    if (operands.length > command.operands.length) {
      throw new UsageError(`unexpected argument '${operands[command.operands.length]}'. Usage: ${usageOf(group, command)}`);
    }

    await command.validate?.(parsed.values, operands);
    // The store layer (and with it @arbor/core) loads only for a command that uses it, never for --help.
    const { openResolvedStore, resolveStore } = await import("./store.js");
    const resolved = await resolveStore(stringOption(parsed.values, "store"), io.env, io.homedir);
    storeLabel = resolved.label;
    const store = await openResolvedStore(resolved, flag(parsed.values, "create"));
    const ctx = { io, store, storeLabel, operands, values: parsed.values, json: flag(parsed.values, "json") };
    let code: number | undefined;
    try {
      code = (await command.run(ctx)) ?? undefined;
    } catch (err) {
      // The command's failure is the one to report; a failure to close after it would only hide it.
      await store.close().catch(() => undefined);
      throw err;
    }
    await store.close();
    return code ?? EXIT_OK;
  } catch (err) {
    return reportError(io, err, { json, storeLabel });
  }
}
