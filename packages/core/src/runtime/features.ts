import { createSubTraceRunner, type SubTraceRunnerDeps } from "../agents/sub-traces.js";
import { goalExtension } from "../goal/run-goals.js";
import type { ExecuteOptions, ExtensionFactory, RunExtension, TraceLaunch } from "../loop/extension.js";
import type { RunDeps } from "../loop/run.js";
import type { RunEventInput } from "../loop/run-context.js";
import type { RunInput, RunResult } from "../loop/run-types.js";
import type { PlanGate } from "../plan/plan-gate.js";
import { type PlanExecution, planExtension } from "../plan/plan-mode.js";

/** Runs a run the way the runtime does (its own session, its place in the session's queue). */
export type Launch = (
  input: RunInput,
  sessionId: string,
  signal: AbortSignal,
  emit: (event: RunEventInput) => void,
  options: ExecuteOptions,
) => Promise<RunResult>;

/** What the features borrow from the runtime besides a run's dependencies. */
export interface FeatureDeps {
  deps: () => RunDeps;
  gate: PlanGate;
  launch: Launch;
  subAgents: Omit<SubTraceRunnerDeps, "execute">;
}

/**
 * The features every run of this runtime takes, as extensions of the loop, in hook order: the goal
 * tree first (it tags each message before the others see it), then plan mode, then the services
 * the tools reach the run through. `plan` says how a run takes part in plan mode beyond phase 1.
 */
export function runFeatures(features: FeatureDeps, plan?: PlanExecution): ExtensionFactory {
  return (launch) => {
    const deps = features.deps();
    const goals = goalExtension(launch);
    const planMode = planExtension(
      {
        config: deps.config,
        gate: features.gate,
        replannerModel: () => launch.models().forScenario("replanner"),
        // A plan step's executor is a sub-run whose plan tools report to this plan.
        execute: (input, sessionId, signal, emit, trace: TraceLaunch, state) =>
          features.launch(input, sessionId, signal, emit, {
            trace,
            extensions: runFeatures(features, { step: state }),
          }),
      },
      plan,
      launch.options.trace !== undefined,
    );
    const services: RunExtension = {
      name: "services",
      start(ctx) {
        const plans = planMode.services();
        ctx.services = {
          goals: goals.services(),
          subTraces: createSubTraceRunner(ctx, {
            ...features.subAgents,
            execute: (input, sessionId, signal, emit, trace) => features.launch(input, sessionId, signal, emit, { trace }),
          }),
          ...(plans ? { plan: plans } : {}),
        };
      },
    };
    return [goals, planMode, services];
  };
}
