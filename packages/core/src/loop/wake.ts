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
 * repeat runs again; any other is answered as interrupted), so the loop goes on as if the run had
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

async function settleOpenCalls(ctx: RunContext, point: Extract<ResumePoint, { kind: "tools" }>): Promise<void> {
  const safe = point.open.filter((c) => ctx.registry.get(c.toolName)?.safeToRepeat === true);
  const unsafe = point.open.filter((c) => !safe.includes(c));
  await recordInterrupted(ctx, unsafe, RESUMED_INTERRUPTED_OUTPUT);
  if (safe.length > 0) {
    await runToolCalls(ctx, point.messageId, safe, "", {
      concurrency: toolLimits(ctx.config).concurrency,
      refusals: new Map(),
    });
  }
}
