import { parseArgs } from "node:util";
import { UsageError } from "./errors.js";

/** One flag, as `node:util` parseArgs takes it, plus its help text. */
export interface OptionDef {
  type: "string" | "boolean";
  short?: string;
  /** Shown in help: `--limit <n>`. */
  valueName?: string;
  /**
   * Help text; a function when the text needs a heavy module (the provider list, the server's
   * defaults): it is loaded only when that command's help is shown, never at start-up.
   */
  description: string | (() => Promise<string>);
}

export type OptionDefs = Readonly<Record<string, OptionDef>>;
export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

function toParseArgsOptions(defs: OptionDefs): Record<string, { type: "string" | "boolean"; short?: string }> {
  const out: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, d] of Object.entries(defs)) out[name] = d.short ? { type: d.type, short: d.short } : { type: d.type };
  return out;
}

/** parseArgs's own messages, reworded to say what to do; `helpCommand` is where to look. */
function usageFromParseError(err: unknown, helpCommand: string): UsageError {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  const help = `Run '${helpCommand} --help' to see the options.`;
  switch (e.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const flag = /'([^']+)'/.exec(message)?.[1] ?? "";
      return new UsageError(`unknown option '${flag}' for '${helpCommand}'. ${help}`);
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const flag = /'(--?[A-Za-z][\w-]*)/.exec(message)?.[1];
      if (/argument missing/.test(message) && flag) return new UsageError(`option '${flag}' needs a value. ${help}`);
      if (/does not take an argument/.test(message) && flag)
        return new UsageError(`option '${flag}' does not take a value. ${help}`);
      if (/ambiguous/.test(message) && flag) {
        return new UsageError(
          `option '${flag}' needs a value, but the next argument is a flag; write ${flag}=<value> if the value starts with '-'.`,
        );
      }
      return new UsageError(`${message.split("\n")[0]} ${help}`);
    }
    default:
      return new UsageError(`${message.split("\n")[0]} ${help}`);
  }
}

/** Strict parse: an unknown flag or a missing value is a UsageError naming the flag. */
export function parseCommandLine(argv: readonly string[], defs: OptionDefs, helpCommand: string): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: toParseArgsOptions(defs),
      allowPositionals: true,
      strict: true,
    });
    return { values: values as OptionValues, positionals };
  } catch (err) {
    throw usageFromParseError(err, helpCommand);
  }
}

/**
 * The positionals of a command line read leniently (unknown flags allowed), to name the command a
 * usage error is about before the strict parse has succeeded.
 */
export function looseWords(argv: readonly string[], defs: OptionDefs): string[] {
  try {
    return parseArgs({ args: [...argv], options: toParseArgsOptions(defs), allowPositionals: true, strict: false }).positionals;
  } catch {
    return [];
  }
}

/** Whether `--json` was asked for, before the command line is known to be valid (for error output). */
export function wantsJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--json") return true;
  }
  return false;
}

export function stringOption(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

/** A whole number in [min, max] from a flag, or a UsageError that says which numbers work. */
export function intOption(values: OptionValues, name: string, min: number, max: number): number | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${raw}'.`);
  }
  return n;
}

/** `--store <spec>` as help shows it. */
export function formatFlag(name: string, def: OptionDef): string {
  const short = def.short ? `-${def.short}, ` : "";
  return `${short}--${name}${def.type === "string" ? ` <${def.valueName ?? "value"}>` : ""}`;
}
