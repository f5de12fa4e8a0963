import { createRuntime } from "@arbor/core";
import { flag, intOption, stringOption } from "../args.js";
import { UsageError } from "../errors.js";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { loadCommandConfig, MAX_TURNS_LIMIT, workspaceDir } from "../run/flags.js";
import { playRun } from "../run/play.js";
import { shellWord } from "../run/shell.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";
import { replayArgs } from "./sessions-replay-args.js";

/**
 * `arbor sessions replay`: the run goes through `runtime.runs.replay` like the trace API's replay, so the
 * runtime checks the call, refuses a session another process drives, branches and records; the CLI only
 * plays the continued run as `arbor run` does.
 */
export async function runSessionsReplay(ctx: CommandContext): Promise<number> {
  const { io, values } = ctx;
  const args = replayArgs(values);
  const call = stringOption(values, "call");
  if (call !== undefined && call.trim() === "")
    throw new UsageError("--call needs the tool call's id, as 'arbor sessions show' prints it.");
  const model = stringOption(values, "model");
  const agent = stringOption(values, "agent");
  const maxTurns = intOption(values, "max-turns", 1, MAX_TURNS_LIMIT);
  const cwd = workspaceDir(io, stringOption(values, "cwd"));
  const config = loadCommandConfig(io, cwd, { model, baseURL: stringOption(values, "base-url") });
  const sessionId = await resolveSessionId(ctx.store, ctx.operands[0] as string);
  const messageId = await resolveEntryId(ctx.store, sessionId, ctx.operands[1] as string);
  const storeFlag = stringOption(values, "store");
  const storeArg = storeFlag === undefined ? "" : ` --store ${shellWord(storeFlag)}`;
  const { code } = await playRun({
    io,
    json: ctx.json,
    yes: flag(values, "yes"),
    store: ctx.store,
    storeLabel: ctx.storeLabel,
    createRuntime: (onPermission, onPlanApproval, onRetry) => {
      const runtime = createRuntime({
        store: ctx.store,
        config,
        env: io.env,
        cwd,
        arborHome: arborHomeOf(io),
        holderName: "arbor sessions replay",
        snapshots: true,
        onPermission,
        onPlanApproval,
        onRetry,
      });
      return {
        run: () =>
          runtime.runs.replay(
            sessionId,
            { messageId, arguments: args, ...(call === undefined ? {} : { toolCallId: call }) },
            {
              // Another process driving the session is told so, not queued behind.
              busy: "reject",
              ...(agent === undefined ? {} : { agent }),
              ...(model === undefined ? {} : { model }),
              ...(maxTurns === undefined ? {} : { maxTurns }),
            },
          ),
        close: () => runtime.close(),
      };
    },
    input: undefined,
    storeArg,
    next: (id) => [
      ["continue", `arbor run${storeArg} --session ${id} "…"`],
      ["inspect", `arbor sessions tree ${id}${storeArg}`],
    ],
  });
  return code;
}
