import { formatFlag, type OptionDefs } from "./args.js";
import type { Command, CommandGroup, TopCommand } from "./commands/command.js";
import { operandsText, STORE_OPTIONS } from "./commands/command.js";

/** Wraps `text` at `width` columns, each line after the first indented by `indent`. */
export function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

async function optionLines(defs: OptionDefs): Promise<string[]> {
  const flags = await Promise.all(
    Object.entries(defs).map(
      async ([name, d]) =>
        [formatFlag(name, d), typeof d.description === "string" ? d.description : await d.description()] as const,
    ),
  );
  const width = Math.max(...flags.map(([f]) => f.length));
  const indent = " ".repeat(width + 4);
  const out: string[] = [];
  for (const [f, desc] of flags) {
    const [first = "", ...rest] = wrap(desc, 100 - indent.length, "");
    out.push(`  ${f.padEnd(width)}  ${first}`, ...rest.map((l) => indent + l));
  }
  return out;
}

function commandsTable(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([n]) => n.length));
  return rows.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`);
}

export function usageOf(group: CommandGroup, cmd: Command): string {
  const operands = operandsText(cmd);
  const flags = Object.entries(cmd.options)
    .map(([n, d]) => ` [${formatFlag(n, d)}]`)
    .join("");
  return `arbor ${group.name} ${cmd.name}${operands}${flags} [--store <spec>] [--json]`;
}

export function topUsage(cmd: TopCommand): string {
  return `arbor ${cmd.name} [options]${cmd.usage === "" ? "" : ` ${cmd.usage}`}`;
}

export async function rootHelp(tops: readonly TopCommand[], groups: readonly CommandGroup[], version: string): Promise<string[]> {
  const rows: [string, string][] = tops.map((c) => [`${c.name}${c.usage === "" ? "" : ` ${c.usage}`}`, c.summary]);
  for (const g of groups) for (const c of g.commands) rows.push([`${g.name} ${c.name}${operandsText(c)}`, c.summary]);
  return [
    `arbor ${version}: the Arbor agent runtime's command line.`,
    "",
    "Usage: arbor <command> [options]",
    "",
    "Commands:",
    ...commandsTable(rows),
    "",
    "Options of every command that uses a store (all of the above):",
    ...(await optionLines(STORE_OPTIONS)),
    "",
    "Global options:",
    "  -h, --help     Show help (also: arbor <command> --help, arbor help <command>).",
    "  -v, --version  Print the version.",
    "",
    "Exit codes: 0 ok, 1 failure, 2 bad usage or bad input (unknown command or flag, invalid id, missing session, invalid file,",
    "invalid model or config, missing API key), 3 a run stopped on a permission or plan nobody could answer (no terminal, no --yes:",
    "see 'arbor approve'), 130 interrupted (Ctrl-C during a run).",
    "",
    "Start with 'arbor demo': a recorded coding run replayed through the real runtime, with no keys and no services.",
  ];
}

export async function groupHelp(group: CommandGroup): Promise<string[]> {
  return [
    `arbor ${group.name}: ${group.summary}`,
    "",
    `Usage: arbor ${group.name} <command> [options]`,
    "",
    "Commands:",
    ...commandsTable(group.commands.map((c) => [`${c.name}${operandsText(c)}`, c.summary] as const)),
    "",
    "Options of every command:",
    ...(await optionLines(STORE_OPTIONS)),
    "",
    `Run 'arbor ${group.name} <command> --help' for a command's own options.`,
  ];
}

export async function commandHelp(group: CommandGroup, cmd: Command): Promise<string[]> {
  const lines = [`Usage: ${usageOf(group, cmd)}`, "", cmd.summary];
  for (const d of cmd.details ?? []) lines.push("", ...wrap(d, 100, ""));
  lines.push("", "Options:", ...(await optionLines({ ...cmd.options, ...STORE_OPTIONS })));
  return lines;
}

export async function topCommandHelp(cmd: TopCommand): Promise<string[]> {
  const lines = [`Usage: ${topUsage(cmd)}`, "", cmd.summary];
  for (const d of cmd.details ?? []) lines.push("", ...wrap(d, 100, ""));
  // A command may describe a shared flag its own way (`run --json` prints events, not one document).
  lines.push("", "Options:", ...(await optionLines({ ...cmd.options, ...STORE_OPTIONS, ...cmd.options })));
  return lines;
}
