import { z } from "zod";
import { modeExtension } from "../agents/mode-switch.js";
import type { ClientFunctionAsks } from "../client-functions/client-function-asks.js";
import { clientFunctionExtension } from "../client-functions/client-function-tool.js";
import { ArborError } from "../errors.js";
import { goalExtension } from "../goal/run-goals.js";
import { scenarioModel } from "../llm/scenario.js";
import type { ExtensionFactory, RunExtension, RunLaunch } from "../loop/extension.js";
import type { RunContext } from "../loop/run-context.js";
import type { RunDeps } from "../loop/run-deps.js";
import { elicitationEventsExtension } from "../mcp/elicitation-events.js";
import type { TraceContext } from "../model/session.js";
import type { PlanGate } from "../plan/plan-gate.js";
import { type PlanExecution, planExtension } from "../plan/plan-mode.js";
import type { QuestionAsks } from "../questions/question-asks.js";
import { questionExtension } from "../questions/question-tool.js";
import { steeringExtension } from "../steering/steering.js";
import { type LauncherDeps, SubAgentLauncher } from "../subagents/launcher.js";
import { mentionsExtension } from "../subagents/mentions.js";
import { subAgentExtension } from "../subagents/sub-agent-extension.js";
import { createSubTraceRunner } from "../subagents/sub-traces.js";
import { todoExtension } from "../todos/todo-extension.js";
import type { PythonRepls } from "../tools/python/python-repls.js";
import type { ToolRegistry } from "../tools/registry.js";

/** What the features borrow from the runtime besides a run's dependencies. */
export interface FeatureDeps {
  deps: () => RunDeps;
  /**
   * Whether the built-in features offer their tools: yes for a runtime left to its default tools;
   * a runtime given its own list offers exactly that list (`builtinTools()` has the features' too).
   */
  featureTools: boolean;
  gate: PlanGate;
  /** Where the `question` tool's questions wait for their answers. */
  questions: QuestionAsks;
  /** Where a remote agent's token is read (the runtime's environment). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where calls of the client's functions wait for its output. */
  clientFunctions: ClientFunctionAsks;
  /** How sub-agents are started: a sub-run is a run like any other (its own session and queue slot). */
  launcher: LauncherDeps;
  /** The runtime's overrides of the explore and delegate contexts. */
  contexts?: { explore?: TraceContext; delegate?: TraceContext };
  /** Records each step's workspace changes; top-level runs only, as a sub-run's edits fall inside its parent's step. */
  snapshots?: RunExtension;
  /** The runtime user's own extensions, after the built-in ones in every run. */
  user?: readonly RunExtension[];
  /** Picks memories after a run when MEMORY_AUTO_EXTRACT is on. */
  memory?: (launch: RunLaunch) => RunExtension;
  /** Ends each run's Python session with the run. */
  python?: RunExtension;
  /** The security gateway's redaction of what is stored; absent when SECURITY_ENABLED is off. */
  security?: RunExtension;
  /** Made for every run and put before the built-in features, so it wraps all of them. */
  observer?: (launch: RunLaunch) => RunExtension;
}

/**
 * The features every run of this runtime takes, as extensions of the loop, in hook order: the goal
 * tree first (it tags each message before the others see it), then plan mode, the todo list and
 * the sub-agents (each offers its own tools and gives them its part of the run), then steering (messages the user sends while the run works, read
 * at each step boundary; a run about to finish answers them first), then mentions (a prompt that
 * starts with `@explore` or `@general` starts that sub-agent as the run's first step, inside steering
 * so a message sent meanwhile is not missed). One sub-agent launcher per run starts `explore` and `delegate`
 * branches and plan steps alike. The runtime user's extensions come last, so they see each message
 * as the features tagged it. `plan` says how a run takes part in plan mode beyond phase 1.
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
    const todos = todoExtension(launch);
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
      launch.options.wake === true,
    );
    const subAgents = subAgentExtension((ctx) =>
      createSubTraceRunner(ctx, launcherOf(ctx), {
        agents: deps.agents,
        ...(features.env ? { env: features.env } : {}),
        ...(features.contexts ? { contexts: features.contexts } : {}),
        now: features.launcher.now,
      }),
    );
    const questions = questionExtension(features.questions);
    const modes = modeExtension(deps.agents, launch.options.trace !== undefined);
    const snapshots = features.snapshots && launch.options.trace === undefined ? [features.snapshots] : [];
    return [
      ...(features.observer ? [features.observer(launch)] : []),
      ...[goals, planMode, todos, subAgents, questions, modes].map((feature) =>
        features.featureTools ? feature : withoutTools(feature),
      ),
      steeringExtension(),
      clientFunctionExtension(features.clientFunctions),
      elicitationEventsExtension(),
      mentionsExtension(deps.agents),
      ...snapshots,
      ...(features.python ? [features.python] : []),
      ...(features.memory ? [features.memory(launch)] : []),
      ...(features.user ?? []),
      // Last, so what it stores is every other feature's message with the secrets taken out.
      ...(features.security ? [features.security] : []),
    ];
  };
}

/** The feature as it takes part in a run whose tools the caller listed: its hooks, none of its tools. */
function withoutTools(feature: RunExtension): RunExtension {
  const { tools: _, ...hooks } = feature;
  return hooks;
}

/** Names the built-in features go by, so a user's extension is never mistaken for one in errors and traces. */
const BUILTIN_NAMES = new Set([
  "goals",
  "plan",
  "todos",
  "subagents",
  "questions",
  "modes",
  "steering",
  "client-functions",
  "mcp-elicitations",
  "mentions",
  "snapshots",
  "security",
  "python",
  "memory",
]);

const HOOKS = [
  "start",
  "system",
  "transformSystem",
  "beforeStep",
  "message",
  "written",
  "afterStep",
  "stop",
  "around",
  "aroundTool",
  "aroundCompaction",
  "resumesCall",
] as const;

const UserExtensionSchema = z.looseObject({
  name: z.string().trim().min(1, "needs a name"),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  rules: z.array(z.unknown()).optional(),
  ...Object.fromEntries(HOOKS.map((hook) => [hook, z.function().optional()])),
});

/**
 * Checks a runtime user's extensions and adds their tools to the runtime's registry; throws
 * `invalid_input` naming the bad one before anything is registered.
 */
export function userExtensions(list: readonly RunExtension[] | undefined, registry: ToolRegistry): readonly RunExtension[] {
  if (!list || list.length === 0) return [];
  const names = new Set<string>();
  const toolNames = new Set<string>();
  for (const [i, ext] of list.entries()) {
    const parsed = UserExtensionSchema.safeParse(ext);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ArborError(
        "invalid_input",
        `Extension ${i + 1} is not a RunExtension: ${issue?.path.join(".") || "it"} ${issue?.message ?? "is malformed"}.`,
      );
    }
    if (BUILTIN_NAMES.has(ext.name) || names.has(ext.name)) {
      throw new ArborError(
        "invalid_input",
        `An extension named "${ext.name}" is already part of every run; give yours another name.`,
      );
    }
    names.add(ext.name);
    for (const tool of ext.tools ?? []) {
      if (registry.get(tool.name) || toolNames.has(tool.name)) {
        throw new ArborError(
          "invalid_input",
          `Extension "${ext.name}" offers a tool "${tool.name}", and the runtime already has one by that name; rename it.`,
        );
      }
      toolNames.add(tool.name);
    }
  }
  for (const ext of list) registry.register(...(ext.tools ?? []));
  return list;
}

/** Ends a run's Python session when the run ends, however it ends. */
export function pythonReplExtension(repls: PythonRepls): RunExtension {
  return {
    name: "python",
    async around(run, loop) {
      try {
        return await loop();
      } finally {
        repls.close(run.sessionId);
      }
    },
  };
}
