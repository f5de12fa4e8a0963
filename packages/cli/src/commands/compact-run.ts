import { assertSessionId } from "@arbor/core/wire";
import type { OptionValues } from "../args.js";
import { flag, stringOption } from "../args.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { resolveSessionId } from "../ids.js";
import type { Io } from "../io.js";
import { writeJson, writeLines } from "../io.js";
import { formatCost, formatCount } from "../render/run-format.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { withSessionRuntime } from "../session-runtime.js";
import { withStore } from "../store.js";

const USAGE = 'arbor compact <session> [--focus "…"]';

/** `arbor compact`: `runtime.compact` on one session, when the user wants room before the next prompt. */
export async function runCompactCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  if (operands.length === 0) throw new UsageError(`missing <session>. Usage: ${USAGE}`);
  if (operands.length > 1) throw new UsageError(`unexpected argument '${operands[1]}'. Usage: ${USAGE}`);
  const given = operands[0]!;
  assertSessionId(given);
  const focus = stringOption(values, "focus");
  if (focus !== undefined && focus.trim() === "") throw new UsageError("--focus is empty: say what the summary should keep.");
  const cwd = workspaceDir(io, stringOption(values, "cwd"));
  const model = stringOption(values, "model");
  if (model !== undefined && model.trim() === "") throw new UsageError("--model needs a value, e.g. --model openai/gpt-4o.");
  const config = loadCommandConfig(io, cwd, {
    model,
    baseURL: stringOption(values, "base-url"),
  });
  return withStore(io, values, async (store) => {
    const sessionId = await resolveSessionId(store, given);
    // A model named on the command line is the one used, or the error: never quietly another one.
    const result = await withSessionRuntime(
      io,
      store,
      "arbor compact",
      (runtime) =>
        runtime.sessions.compact(sessionId, {
          ...(focus === undefined ? {} : { focus }),
          ...(model === undefined ? {} : { model }),
        }),
      { config, cwd },
    );
    if (flag(values, "json")) writeJson(io.stdout, result);
    else {
      const kept = result.kept === 0 ? "none kept verbatim" : `${result.kept} kept verbatim`;
      writeLines(io.stdout, [
        `Compacted session ${sessionId}: ${result.summarized} messages summarized, ${kept}.`,
        `Context about ${formatCount(result.tokensBefore)} → ${formatCount(result.tokensAfter)} tokens; compaction entry ${result.entryId}.`,
        `Summary cost: ${result.costKnown === false ? "price unknown" : formatCost(result.cost)}.`,
      ]);
    }
    return EXIT_OK;
  });
}
