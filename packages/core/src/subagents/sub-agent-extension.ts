import type { RunContext, RunExtension } from "../loop/run-context.js";
import { delegateTool, exploreTool } from "./sub-agent-tools.js";
import { type SubTraceRunner, subTracesKey } from "./sub-trace-runner.js";

/**
 * Sub-agents as a feature of a run: it offers `explore` and `delegate`, and gives them the run's
 * sub-trace runner (its `subTracesKey` slot), made once the run's context exists.
 */
export function subAgentExtension(runner: (ctx: RunContext) => SubTraceRunner): RunExtension {
  return {
    name: "subagents",
    tools: [exploreTool(), delegateTool()],
    start(ctx) {
      ctx.values.set(subTracesKey, runner(ctx));
    },
  };
}
