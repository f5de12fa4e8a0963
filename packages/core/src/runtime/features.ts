import { goalExtension } from "../goal/run-goals.js";
import { scenarioModel } from "../llm/scenario.js";
import type { ExtensionFactory, RunExtension } from "../loop/extension.js";
import type { RunDeps } from "../loop/run.js";
import type { RunContext } from "../loop/run-context.js";
import type { TraceContext } from "../model/session.js";
import type { PlanGate } from "../plan/plan-gate.js";
import { type PlanExecution, planExtension } from "../plan/plan-mode.js";
import { type LauncherDeps, SubAgentLauncher } from "../subagents/launcher.js";
import { createSubTraceRunner } from "../subagents/sub-traces.js";

/** What the features borrow from the runtime besides a run's dependencies. */
export interface FeatureDeps {
  deps: () => RunDeps;
  gate: PlanGate;
  /** How sub-agents are started: a sub-run is a run like any other (its own session and queue slot). */
  launcher: LauncherDeps;
  /** The runtime's overrides of the explore and delegate contexts. */
  contexts?: { explore?: TraceContext; delegate?: TraceContext };
}

/**
 * The features every run of this runtime takes, as extensions of the loop, in hook order: the goal
 * tree first (it tags each message before the others see it), then plan mode, then the services
 * the tools reach the run through. One sub-agent launcher per run starts `explore` and `delegate`
 * branches and plan steps alike. `plan` says how a run takes part in plan mode beyond phase 1.
 */
export function runFeatures(features: FeatureDeps, plan?: PlanExecution): ExtensionFactory {
  return (launch) => {
    const deps = features.deps();
    let launcher: SubAgentLauncher | undefined;
    const launcherOf = (ctx: RunContext) => {
      launcher ??= new SubAgentLauncher(ctx, features.launcher);
      return launcher;
    };
    const goals = goalExtension(launch);
    const planMode = planExtension(
      {
        config: deps.config,
        gate: features.gate,
        replannerModel: (model) => scenarioModel(launch.models, "replanner", model),
        steps: (ctx) => ({
          launcher: launcherOf(ctx),
          // A step's executor is a sub-run whose plan tools report to this plan.
          executorExtensions: (state) => runFeatures(features, { step: state }),
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
          subTraces: createSubTraceRunner(ctx, launcherOf(ctx), {
            ...(features.contexts ? { contexts: features.contexts } : {}),
            now: features.launcher.now,
          }),
          ...(plans ? { plan: plans } : {}),
        };
      },
    };
    return [goals, planMode, services];
  };
}
