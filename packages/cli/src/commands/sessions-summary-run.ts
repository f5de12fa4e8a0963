import { stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { resolveSessionId } from "../ids.js";
import { writeJson, writeLines } from "../io.js";
import { formatCost } from "../render/run-format.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { withSessionRuntime } from "../session-runtime.js";
import type { CommandContext } from "./command.js";

export async function runSessionsSummary(ctx: CommandContext): Promise<void> {
  const { io, values } = ctx;
  const model = stringOption(values, "model");
  if (model !== undefined && model.trim() === "") throw new UsageError("--model needs a value, e.g. --model openai/gpt-4o.");
  const cwd = workspaceDir(io, stringOption(values, "cwd"));
  const config = loadCommandConfig(io, cwd, { model, baseURL: stringOption(values, "base-url") });
  const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const result = await withSessionRuntime(
    io,
    ctx.store,
    "arbor sessions summary",
    (runtime) => runtime.sessions.summary(sessionId, model === undefined ? {} : { model }),
    { config, cwd },
  );
  if (ctx.json) return writeJson(io.stdout, result);
  writeLines(io.stdout, [
    result.summary,
    "",
    `— ${result.model}, ${result.costKnown === false ? "price unknown" : formatCost(result.cost)}`,
  ]);
}
