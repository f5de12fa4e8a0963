import { assertSessionId } from "@arbor/core/wire";
import type { OptionValues } from "../args.js";
import { flag, stringOption } from "../args.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import type { Io } from "../io.js";
import { writeJson, writeLines } from "../io.js";
import { withSessionRuntime } from "../session-runtime.js";
import { withStore } from "../store.js";

const REVERT_USAGE = "arbor revert <session> [--to <entry>] [--file <path>] [--step <entry>]";
const UNREVERT_USAGE = "arbor unrevert <session>";

function sessionOperand(operands: readonly string[], usage: string): string {
  if (operands.length === 0) throw new UsageError(`missing <session>. Usage: ${usage}`);
  if (operands.length > 1) throw new UsageError(`unexpected argument '${operands[1]}'. Usage: ${usage}`);
  assertSessionId(operands[0]!);
  return operands[0]!;
}

const plural = (n: number) => (n === 1 ? "1 file" : `${n} files`);

/** `arbor revert`: undo what the agent did to the workspace since an entry, and go back there in the session. */
export async function runRevertCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  const given = sessionOperand(operands, REVERT_USAGE);
  const toGiven = stringOption(values, "to");
  const file = stringOption(values, "file");
  const stepGiven = stringOption(values, "step");
  for (const [name, value] of [
    ["to", toGiven],
    ["file", file],
    ["step", stepGiven],
  ] as const) {
    if (value !== undefined && value.trim() === "") throw new UsageError(`--${name} is empty. Usage: ${REVERT_USAGE}`);
  }
  if (toGiven !== undefined && stepGiven !== undefined)
    throw new UsageError(`give --to or --step, not both. Usage: ${REVERT_USAGE}`);
  return withStore(io, values, async (store) => {
    const sessionId = await resolveSessionId(store, given);
    const to = toGiven === undefined ? undefined : await resolveEntryId(store, sessionId, toGiven);
    const step = stepGiven === undefined ? undefined : await resolveEntryId(store, sessionId, stepGiven);
    const target = {
      ...(to === undefined ? {} : { to }),
      ...(file === undefined ? {} : { file }),
      ...(step === undefined ? {} : { step }),
    };
    const result = await withSessionRuntime(io, store, "arbor revert", (runtime) => runtime.sessions.revert(sessionId, target));
    if (flag(values, "json")) writeJson(io.stdout, result);
    else
      writeLines(io.stdout, [
        result.scope === "session"
          ? `Reverted session ${sessionId} to before entry ${result.to}: ${plural(result.files)} restored${result.workspace ? ` in ${result.workspace}` : ""}.`
          : `Reverted ${file ?? `step ${result.to}`} in session ${sessionId}: ${plural(result.files)} restored${result.workspace ? ` in ${result.workspace}` : ""}; the conversation stays where it is.`,
        `Undo with: arbor unrevert ${sessionId}`,
      ]);
    return EXIT_OK;
  });
}

/** `arbor unrevert`: undo the last revert, files and leaf. */
export async function runUnrevertCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  const given = sessionOperand(operands, UNREVERT_USAGE);
  return withStore(io, values, async (store) => {
    const sessionId = await resolveSessionId(store, given);
    const result = await withSessionRuntime(io, store, "arbor unrevert", (runtime) => runtime.sessions.unrevert(sessionId));
    if (flag(values, "json")) writeJson(io.stdout, result);
    else
      writeLines(io.stdout, [
        `Unreverted session ${sessionId}: ${plural(result.files)} restored, leaf back at ${result.leaf ?? "the start"}.`,
      ]);
    return EXIT_OK;
  });
}
