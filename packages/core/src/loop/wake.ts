import type { StreamedToolCall } from "../llm/stream-step.js";
import type { Entry } from "../model/entry.js";
import { toolEffects } from "../tools/tool.js";
import { type ResumePoint, resumePoint, tallyRun } from "./resume-point.js";
import type { RunContext } from "./run-context.js";
import type { StepsOutcome } from "./run-types.js";
import { asStep } from "./steps.js";
import { toolLimits } from "./tool-limits.js";
import { recordInterrupted, runToolCalls } from "./tool-runner.js";
import { savedCheckpoints, startedCalls } from "./tool-start.js";

/**
 * What the model reads for an `at-most-once` call a crash left recorded started and without a result:
 * it may have done none, part or all of its work, so it is not run again, and the model decides.
 */
export const RESUMED_INTERRUPTED_OUTPUT =
  "[Tool execution was interrupted before it finished: the process running it stopped after the call had started, so its effect may or may not have happened, in part or in full. It was not run again, because running it twice could repeat its effects; check what it did before calling it again.]";

/**
 * Takes up a run its process left unfinished: the spent budgets are read back from the journal
 * onto the run's context, and the calls left without a result are settled by what their tool says a
 * repeat does (see `ToolEffects`) or taken up by the feature whose work they had started, so the loop
 * goes on as if the run had never stopped. Returns the outcome when the run was already over, else
 * undefined: loop on.
 */
export async function wakeRun(ctx: RunContext, path: readonly Entry[]): Promise<StepsOutcome | undefined> {
  const spent = tallyRun(path);
  ctx.tally = spent.tally;
  ctx.toolCalls = spent.toolCalls;
  const point: ResumePoint | undefined = resumePoint(path);
  if (point === undefined) return undefined;
  switch (point.kind) {
    case "answer":
    case "continue":
      return undefined;
    case "finished":
      return { status: "done", stopReason: ctx.tally.steps >= ctx.maxTurns ? "max_turns" : "finished" };
    case "tools":
      await asStep(ctx, () =>
        settleOpenCalls(ctx, point, startedCalls(path, point.messageId), savedCheckpoints(path, point.messageId)),
      );
      if (ctx.signal.aborted) return { status: "aborted" };
      return undefined;
    default: {
      const never: never = point;
      return never;
    }
  }
}

/** Whether a feature takes up the call's unfinished work (`RunExtension.resumesCall`). */
function takenUp(ctx: RunContext, messageId: string, call: StreamedToolCall): boolean {
  const info = { callId: call.toolCallId, tool: call.toolName, messageId };
  return ctx.extensions.some((ext) => ext.resumesCall?.(ctx, info) === true);
}

/**
 * An `at-most-once` call recorded started is answered as interrupted, unless its feature takes up its
 * work or its `resumable` tool saved a checkpoint to take it up from; every other open call runs now: a `none` call changes nothing, an `idempotent-by-key` one runs
 * with the key it started with, and a call with no start record had not begun when the process
 * stopped, so this is its first run.
 */
async function settleOpenCalls(
  ctx: RunContext,
  point: Extract<ResumePoint, { kind: "tools" }>,
  started: ReadonlyMap<string, string>,
  checkpoints: ReadonlyMap<string, Record<string, unknown>>,
): Promise<void> {
  // Every at-most-once call is offered to the features first: one that takes it up continues its work
  // (a sub-agent's branches) whether or not its start was recorded.
  const cut = point.open.filter(
    (c) =>
      toolEffects(ctx.registry.get(c.toolName)) === "at-most-once" &&
      !takenUp(ctx, point.messageId, c) &&
      !(ctx.registry.get(c.toolName)?.resumable === true && checkpoints.has(c.toolCallId)) &&
      started.has(c.toolCallId),
  );
  const run = point.open.filter((c) => !cut.includes(c));
  await recordInterrupted(ctx, cut, RESUMED_INTERRUPTED_OUTPUT);
  if (run.length > 0) {
    await runToolCalls(ctx, point.messageId, run, "", {
      concurrency: toolLimits(ctx.config).concurrency,
      refusals: new Map(),
      keys: started,
      checkpoints,
    });
  }
}
