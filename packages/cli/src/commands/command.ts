import type { Store } from "@arbor/core";
import type { OptionDefs, OptionValues } from "../args.js";
import type { Io } from "../io.js";

/** What a command gets: its operands and flags, already checked, and an open store. */
export interface CommandContext {
  readonly io: Io;
  readonly store: Store;
  /** The store as messages name it (`file store /home/me/.arbor`). */
  readonly storeLabel: string;
  readonly operands: readonly string[];
  readonly values: OptionValues;
  readonly json: boolean;
}

export interface Command {
  readonly name: string;
  /** Operand names as help shows them: `<id>`; all required unless `requiredOperands` says fewer. */
  readonly operands: readonly string[];
  /** How many of `operands` must be given (default: all); the rest show as `[<name>]`. */
  readonly requiredOperands?: number;
  readonly summary: string;
  /** More help, one paragraph a line. */
  readonly details?: readonly string[];
  /** Flags of this command besides the shared ones (`--store`, `--json`, `--help`). */
  readonly options: OptionDefs;
  /** Checks operands and flags before the store is opened, so bad input never touches a store. */
  validate?(values: OptionValues, operands: readonly string[]): void | Promise<void>;
  /**
   * Runs the command. This file is loaded for `--help` and `--version` too, so `run` imports the
   * implementation when called: `run: async (ctx) => (await import("./x-run.js")).runX(ctx)`.
   * A command that drives a run returns the run's exit code; the others exit 0 unless they throw.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most commands return nothing; only a run's exit code is returned
  run(ctx: CommandContext): Promise<void | number>;
}

/** The operands as help and usage lines show them: ` <id>`, optional ones as ` [<path>]`. */
export function operandsText(cmd: Command): string {
  const required = cmd.requiredOperands ?? cmd.operands.length;
  return cmd.operands.map((o, i) => (i < required ? ` <${o}>` : ` [<${o}>]`)).join("");
}

export interface CommandGroup {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly Command[];
}

/**
 * Checks a session id as the store will. The id rules (core's schemas) load here, when a command
 * runs, not at start-up: every command's descriptor is read for `--help` and `--version` too.
 */
export async function checkSessionId(id: string | undefined): Promise<void> {
  const wire: typeof import("@arbor/core/wire") = await import("@arbor/core/wire");
  wire.assertSessionId(id);
}

/** Checks an entry id as the store will (loaded as `checkSessionId` is). */
export async function checkEntryId(id: string | undefined): Promise<void> {
  const wire: typeof import("@arbor/core/wire") = await import("@arbor/core/wire");
  wire.assertEntryId(id);
}

/** `validate` for commands whose one operand is a session id. */
export async function validateSessionIdOperand(_values: OptionValues, operands: readonly string[]): Promise<void> {
  await checkSessionId(operands[0]);
}

/** Flags every store command takes. */
export const STORE_OPTIONS: OptionDefs = {
  store: {
    type: "string",
    valueName: "spec",
    description:
      "Where sessions live: a directory (file store), sqlite:<file>, mysql:// (or mariadb://)… or postgres://… (env ARBOR_STORE; default: the file store in $ARBOR_HOME, else ~/.arbor).",
  },
  create: {
    type: "boolean",
    description:
      "Make the store if the --store (or ARBOR_STORE) path, or a MySQL or PostgreSQL database, does not exist yet; without it a missing one is an error (exit 2).",
  },
  json: { type: "boolean", description: 'Print JSON on stdout instead of text (errors too: {"error":{"code","message"}}).' },
  help: { type: "boolean", short: "h", description: "Show this help." },
};

/**
 * A command of its own, not in a group (`arbor run`, `arbor demo`). It opens what it needs itself,
 * in the order it needs (flags, workspace and config are checked before any store is opened), and
 * returns its exit code.
 */
export interface TopCommand {
  readonly name: string;
  /** Operands as help shows them: `"<prompt>"`; empty for none. */
  readonly usage: string;
  readonly summary: string;
  /** More help, one paragraph a line. */
  readonly details?: readonly string[];
  /** Flags of this command besides the shared ones (`--store`, `--json`, `--help`). */
  readonly options: OptionDefs;
  /** Runs the command; like `Command.run`, it imports its implementation when called. */
  run(io: Io, values: OptionValues, operands: readonly string[]): Promise<number>;
}
