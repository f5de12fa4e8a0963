import type { StreamedToolCall } from "../llm/stream-step.js";
import type { Entry } from "../model/entry.js";
import { type ResumePoint, resumePoint, tallyRun } from "./resume-point.js";
import type { RunContext } from "./run-context.js";
import type { StepsOutcome } from "./run-types.js";
import { asStep } from "./steps.js";
import { toolLimits } from "./tool-limits.js";
import { recordInterrupted, runToolCalls } from "./tool-runner.js";

/**
 * What the model reads for a call of a tool that is not safe to repeat when a crash left it without
 * a result: it may have done part or all of its work, so it is not run again, and the model decides.
 */
export const RESUMED_INTERRUPTED_OUTPUT =
  "[Tool execution was interrupted before it finished: the process running it stopped. It was not run again, because running it twice could repeat its effects; check what it did before calling it again.]";

/**
 * Takes up a run its process left unfinished: the spent budgets are read back from the journal
 * onto the run's context, and the calls left without a result are settled (a tool that is safe to
 * repeat runs again, and so does one whose feature takes up its work; any other is answered as
 * interrupted), so the loop goes on as if the run had
 * never stopped. Returns the outcome when the run was already over, else undefined: loop on.
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
      await asStep(ctx, () => settleOpenCalls(ctx, point));
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

async function settleOpenCalls(ctx: RunContext, point: Extract<ResumePoint, { kind: "tools" }>): Promise<void> {
  // Run again: calls safe to repeat, and calls whose feature continues what they had started.
  const again = point.open.filter((c) => ctx.registry.get(c.toolName)?.safeToRepeat === true || takenUp(ctx, point.messageId, c));
  const unsafe = point.open.filter((c) => !again.includes(c));
  await recordInterrupted(ctx, unsafe, RESUMED_INTERRUPTED_OUTPUT);
  if (again.length > 0) {
    await runToolCalls(ctx, point.messageId, again, "", {
      concurrency: toolLimits(ctx.config).concurrency,
      refusals: new Map(),
    });
  }
}
