import type { RunContext, RunExtension } from "../loop/run-context.js";
import { delegateTool, exploreTool } from "./sub-agent-tools.js";
import { type SubTraceRunner, subTracesKey } from "./sub-trace-runner.js";

const SUB_AGENT_TOOLS: ReadonlySet<string> = new Set([exploreTool().name, delegateTool().name]);

/**
 * Sub-agents as a feature of a run: it offers `explore` and `delegate`, and gives them the run's
 * sub-trace runner (its `subTracesKey` slot), made once the run's context exists. A woken run's
 * calls of them left open take up the sub-agents they had started (`resumesCall`).
 */
export function subAgentExtension(runner: (ctx: RunContext) => SubTraceRunner): RunExtension {
  return {
    name: "subagents",
    tools: [exploreTool(), delegateTool()],
    start(ctx) {
      ctx.values.set(subTracesKey, runner(ctx));
    },
    // A call cut off with its process continues its sub-agents rather than answering "interrupted".
    resumesCall(ctx, call) {
      const subTraces = ctx.values.get(subTracesKey);
      if (!subTraces || !SUB_AGENT_TOOLS.has(call.tool)) return false;
      subTraces.resume(call.callId);
      return true;
    },
  };
}
