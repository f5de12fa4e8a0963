import { z } from "zod";
import { ArborError } from "../errors.js";
import { appendCustom } from "../loop/journal.js";
import type { RunExtension } from "../loop/run-context.js";
import type { Entry } from "../model/entry.js";
import type { PermissionRule } from "../permissions/permission.js";
import { runKey } from "../tools/run-values.js";
import { defineTool } from "../tools/tool.js";

/**
 * `plan_enter` and `plan_exit`: the agent switches the session into the plan agent (read-only
 * planning) and back to build, as OpenCode's tools do. The switch is recorded in the session (an
 * `arbor.agent_change` entry, beside `model_change` and `thinking_level_change`) and the run ends
 * after the step that switched: the session's next run, unless it names an agent, runs as the agent
 * switched to. The presets decide who may switch (build: `plan_enter` allow; plan: `plan_exit` ask,
 * so leaving plan mode waits for the user's approval of the plan like a plan approval).
 */
export const AGENT_CHANGE_ENTRY_TYPE = "arbor.agent_change";
export const PLAN_ENTER_TOOL = "plan_enter";
export const PLAN_EXIT_TOOL = "plan_exit";

export const AgentChangeSchema = z.looseObject({
  /** The agent the session runs as from here on. */
  agent: z.string().min(1),
  /** The agent that switched. */
  from: z.string().min(1),
  /** The tool call that switched. */
  via: z.enum([PLAN_ENTER_TOOL, PLAN_EXIT_TOOL]),
  /** What the switch was for: the plan presented (plan_exit), the reason (plan_enter). */
  note: z.string().optional(),
});
export type AgentChange = z.infer<typeof AgentChangeSchema>;

/** The agent the latest switch on the path chose; undefined when the session never switched. */
export function sessionAgent(path: readonly Entry[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type !== "custom" || entry.customType !== AGENT_CHANGE_ENTRY_TYPE) continue;
    const parsed = AgentChangeSchema.safeParse(entry.data);
    if (parsed.success) return parsed.data.agent;
  }
  return undefined;
}

/** What the run offers the switch tools: changing the agent the session runs as next. */
export interface RunModes {
  switchTo(change: AgentChange): void;
}

export const modesKey = runKey<RunModes>("modes");

const PlanEnterInputSchema = z.strictObject({
  reason: z.string().trim().max(2000).optional().describe("Why the task needs planning first, in a sentence"),
});

const PlanExitInputSchema = z.strictObject({
  plan: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe("The plan the user approves before anything is changed: the steps, the files, the risks"),
});

function modes(run: { get(key: typeof modesKey): RunModes | undefined } | undefined): RunModes {
  const found = run?.get(modesKey);
  if (!found) throw new ArborError("invalid_input", "Switching agents changes a session's run; this tool only works inside one.");
  return found;
}

export function planEnterTool() {
  return defineTool({
    name: PLAN_ENTER_TOOL,
    description:
      "Switch this session to the plan agent, which reads and searches but changes nothing, when a task is large or " +
      "unclear enough to plan before editing. The run ends after this call; the user's next message is answered in plan mode.",
    input: PlanEnterInputSchema,
    async execute(input, ctx) {
      if (ctx.agent === "plan") throw new ArborError("invalid_input", "This session is in plan mode already.");
      await ctx.ask({ permission: PLAN_ENTER_TOOL, patterns: ["plan"], metadata: input.reason ? { reason: input.reason } : {} });
      modes(ctx.run).switchTo({
        agent: "plan",
        from: ctx.agent,
        via: PLAN_ENTER_TOOL,
        ...(input.reason ? { note: input.reason } : {}),
      });
      return {
        output:
          "Switched to the plan agent. This run ends here; from the user's next message you plan without changing anything, then call plan_exit with the plan.",
        title: "Entering plan mode",
        metadata: { agent: "plan" },
      };
    },
  });
}

export function planExitTool() {
  return defineTool({
    name: PLAN_EXIT_TOOL,
    description:
      "Present the finished plan and ask the user to approve it; approved, the session switches to the build agent, " +
      "which may edit and run commands. Call it only in plan mode, once the plan is complete. The run ends after it.",
    input: PlanExitInputSchema,
    async execute(input, ctx) {
      if (ctx.agent !== "plan")
        throw new ArborError("invalid_input", `plan_exit leaves plan mode; agent ${ctx.agent} is not in it.`);
      // The user approves the plan (the plan preset asks): a rejection reaches the model and ends the run.
      await ctx.ask({
        permission: PLAN_EXIT_TOOL,
        patterns: ["build"],
        metadata: { plan: input.plan, description: "Approve the plan and switch to the build agent" },
      });
      modes(ctx.run).switchTo({ agent: "build", from: ctx.agent, via: PLAN_EXIT_TOOL, note: input.plan });
      return {
        output:
          "The user approved the plan; the session switched to the build agent. This run ends here: wait for the user's next message to start implementing.",
        title: "Plan approved: switching to build",
        metadata: { agent: "build" },
      };
    },
  });
}

/**
 * The switch tools as a feature of a run. A sub-agent's run has its own session and is started for
 * one task, so it never switches: the tools are hidden there. A switch ends the run after its step
 * and is recorded once that step's results are written, on the same branch.
 */
export function modeExtension(agents: Readonly<Record<string, unknown>>, isTrace: boolean): RunExtension {
  let change: AgentChange | undefined;
  let recorded = false;
  const deny = (permission: string): PermissionRule => ({ permission, pattern: "*", action: "deny" });
  return {
    name: "modes",
    tools: [planEnterTool(), planExitTool()],
    rules: isTrace ? [deny(PLAN_ENTER_TOOL), deny(PLAN_EXIT_TOOL)] : [],
    start(ctx) {
      ctx.values.set(modesKey, {
        switchTo(next) {
          if (!Object.hasOwn(agents, next.agent)) {
            throw new ArborError("invalid_input", `This runtime has no agent "${next.agent}" to switch to.`);
          }
          change = next;
        },
      });
    },
    stop: () => (change ? "finished" : undefined),
    afterStep(ctx) {
      // Nothing to wait for unless this step switched agents.
      if (!change || recorded) return;
      recorded = true;
      return appendCustom(ctx, AGENT_CHANGE_ENTRY_TYPE, change).then(() => {});
    },
  };
}
