import { costOf } from "../llm/catalog.js";
import type { ResolvedModel } from "../llm/resolved-model.js";
import { scenarioRetry } from "../llm/scenario.js";
import { appendMessage, chargeRun } from "../loop/journal.js";
import type { RunContext } from "../loop/run-context.js";
import type { StepsOutcome } from "../loop/run-types.js";
import { cutText } from "../model/text.js";
import { appendGoalTree, appendPlanRecord } from "./plan-entries.js";
import { type Plan, RESULT_CHARS } from "./plan-schema.js";
import type { PlanState } from "./plan-state.js";
import { callReplanner, type PastStep, type ReplanCall, replannerPrompt, shouldSkipReplan } from "./replanner.js";
import { runPlanStep, type StepLauncher } from "./step-runner.js";

export interface PhaseTwoDeps {
  steps: StepLauncher;
  /** The replanner's model: the pool's `replanner`, else the run's; undefined when it cannot be resolved. */
  replanner(): ResolvedModel | undefined;
}

/**
 * Asks the replanner, shown as an LLM call of node `replanner`. Any failure — the model
 * call, an answer that is not a decision — means continue (a broken replanner must not stop a plan that works), so it returns undefined.
 */
async function replan(ctx: RunContext, deps: PhaseTwoDeps, prompt: string, call: number): Promise<ReplanCall | undefined> {
  const model = deps.replanner();
  if (!model) return undefined;
  const callId = `replan_${call}`;
  const started = ctx.clock.now();
  ctx.emit({
    type: "llm_start",
    call_id: callId,
    node: "replanner",
    model: model.ref,
    input: cutText(prompt, 2000),
    motivation: "",
  });
  let result: ReplanCall | undefined;
  let output: string;
  try {
    const env = { clock: ctx.clock, retry: scenarioRetry("replanner", ctx.retry), signal: ctx.signal };
    result = await callReplanner(env, model.model, prompt, {
      maxOutputTokens: Math.min(ctx.config.llm.maxTokens, model.info.limit.output),
    });
    output = JSON.stringify(result.decision);
  } catch (err) {
    output = `[replanner failed, continuing: ${err instanceof Error ? err.message : String(err)}]`;
  }
  const usage = result?.usage;
  // The replanner's answer is not an entry of the run, so its call is charged here.
  chargeRun(ctx, {
    usage,
    cost: usage ? costOf(usage, model.info.cost) : 0,
    costKnown: !usage || model.info.cost !== undefined,
    steps: 1,
  });
  ctx.emit({
    type: "llm_end",
    call_id: callId,
    node: "replanner",
    model: model.ref,
    duration_ms: Math.max(0, Math.round(ctx.clock.now() - started)),
    ...(usage ? { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output } : {}),
    input: "",
    output: cutText(output, 1000),
  });
  return result;
}

/** The closing report when no replanner answered for the plan: each step with its result. Pure. */
export function planReport(plan: Plan, note?: string): string {
  const ran = plan.steps.filter((s) => s.status === "completed" || s.status === "failed");
  const completed = plan.steps.filter((s) => s.status === "completed").length;
  const failed = plan.steps.filter((s) => s.status === "failed").length;
  const skipped = plan.steps.filter((s) => s.status === "skipped").length;
  const counts = [`${completed} of ${plan.steps.length} steps completed`];
  if (failed > 0) counts.push(`${failed} failed`);
  if (skipped > 0) counts.push(`${skipped} not run`);
  const lines = [`Plan "${plan.title}" finished: ${counts.join(", ")}.${note ? ` ${note}` : ""}`];
  for (const step of ran) lines.push("", `${step.id}. ${step.title} [${step.status}]`, cutText(step.result ?? "", RESULT_CHARS));
  return lines.join("\n");
}

/** The run's last message: the final answer, written, streamed and kept as the run's text. */
export async function finalMessage(ctx: RunContext, state: PlanState, text: string): Promise<void> {
  ctx.emit({ type: "token", content: text });
  const goalId = state.plan?.goalId;
  await appendMessage(ctx, {
    role: "assistant",
    content: [{ type: "text", text }],
    description: cutText(text, 200),
    model: ctx.model.ref,
    agent: ctx.agent.name,
    finishReason: "stop",
    ...(goalId ? { goalId } : {}),
  });
}

/**
 * Phase 2: the plan's pending steps in order, each by its own executor,
 * at most PLAN_MAX_STEPS of them; after each, the replanner unless its heuristics skip it. Ends
 * with the plan goal closed, the tree and the plan's outcome recorded, and a final message. Each
 * step's start and end is recorded (`running` plan records), so a run woken after its process died
 * goes on at the step it was on.
 */
export async function runPhaseTwo(ctx: RunContext, state: PlanState, deps: PhaseTwoDeps): Promise<StepsOutcome> {
  // A plan taken up after its process died starts from its record: the steps that ran stay done.
  const ran = state.plan!.steps.filter((s) => s.status === "completed" || s.status === "failed");
  const past: PastStep[] = ran.map((s) => ({ title: s.title, status: s.status, result: s.result ?? "" }));
  let executed = ran.length;
  let replans = 0;
  let response: string | undefined;
  await appendPlanRecord(ctx, { plan: state.plan!, status: "running" });
  for (;;) {
    if (ctx.signal.aborted) break;
    const plan = state.plan!;
    // A step still running is one a dead process was running: it goes on first.
    const next = plan.steps.find((s) => s.status === "running") ?? plan.steps.find((s) => s.status === "pending");
    if (!next || executed >= state.maxSteps) break;
    const done = await runPlanStep(ctx, state, next, past, deps.steps);
    executed++;
    past.push(done);
    if (ctx.signal.aborted) break;
    const remaining = state.plan!.steps.filter((s) => s.status === "pending").map((s) => s.title);
    if (remaining.length === 0 || executed >= state.maxSteps) continue;
    if (!ctx.config.plan.revisionEnabled || shouldSkipReplan(done, remaining.length)) continue;
    const answer = await replan(ctx, deps, replannerPrompt(state.plan!.title, past, remaining), ++replans);
    const decision = answer?.decision;
    if (!decision || decision.action === "continue") continue;
    if (decision.action === "revise") {
      if (answer.steps.length > 0) state.revise(answer.steps, decision.reason);
      continue;
    }
    // finish: the task is done; the rest is marked done without running: nothing is left for it to do.
    for (const step of state.plan!.steps) {
      if (step.status === "pending")
        state.setStep(step.id, "completed", `Not needed: ${decision.reason || "the plan finished early"}`);
    }
    response = decision.response.trim() || undefined;
    break;
  }

  const plan = state.plan!;
  if (ctx.signal.aborted) {
    state.closePlan("abandoned", "Aborted.");
    await appendGoalTree(ctx);
    await appendPlanRecord(ctx, { plan: state.plan!, status: "aborted" });
    return { status: "aborted" };
  }
  const capped = plan.steps.some((s) => s.status === "pending");
  for (const step of plan.steps) {
    if (step.status === "pending") state.setStep(step.id, "skipped", `Not run: PLAN_MAX_STEPS (${state.maxSteps}) reached.`);
  }
  const final = state.plan!;
  const anyCompleted = final.steps.some((s) => s.status === "completed");
  const report = planReport(final, capped ? `Stopped after ${state.maxSteps} steps (PLAN_MAX_STEPS).` : undefined);
  state.closePlan(anyCompleted ? "completed" : "abandoned", cutText(response ?? report, 500));
  await appendGoalTree(ctx);
  await appendPlanRecord(ctx, { plan: state.plan!, status: anyCompleted ? "completed" : "failed" });
  await finalMessage(ctx, state, response ?? report);
  return { status: "done", stopReason: "finished" };
}
