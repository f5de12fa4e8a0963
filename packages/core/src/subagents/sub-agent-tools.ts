import { z } from "zod";
import { DEFAULT_DELEGATE_AGENT, delegateTargets } from "../agents/delegate-targets.js";
import { ArborError } from "../errors.js";
import { goalsKey } from "../goal/goals-key.js";
import { oneLine } from "../model/text.js";
import { defineTool, type ToolContext, type ToolOffer, type ToolResult } from "../tools/tool.js";
import { type SubTraceBatch, type SubTraceRequest, subTracesKey } from "./sub-trace-runner.js";

/** A branch or task: one line of what to do, long enough to be specific. */
const TaskText = z.string().trim().min(1, "a task must say what to do").max(4000);

export const ExploreInputSchema = z.strictObject({
  branches: z
    .array(TaskText)
    .min(1, "give at least one direction to explore")
    .max(16, "explore at most 16 directions in one call")
    .describe("The directions to explore, one sub-agent each, run in parallel."),
  background: z
    .string()
    .max(20_000)
    .optional()
    .describe("What every branch should know to start. Without it each branch starts from this conversation."),
});

export const DelegateInputSchema = z.strictObject({
  task: TaskText.describe("The task to hand over, with everything the sub-agent needs to do it alone."),
  agent: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('The sub-agent to hand it to, by name: one the tool description lists or the user named; default "general".'),
});

export type SubAgentMetadata = {
  goalTree: unknown;
  batchId: string;
  goalId: string;
  subTraceIds: string[];
  statuses: string[];
};

function subTraces(ctx: ToolContext) {
  const runner = ctx.run?.get(subTracesKey);
  if (!runner) throw new ArborError("invalid_input", "Sub-agents are started by a run; this tool only works inside one.");
  return runner;
}

/** The tool result: each branch's report under its task, and the new goal tree for the session tree. */
function resultOf(batch: SubTraceBatch, ctx: ToolContext): ToolResult<SubAgentMetadata> {
  const output = batch.outcomes.map((o) => `### ${o.task}\n(sub-trace ${o.traceId}, ${o.status})\n\n${o.summary}`).join("\n\n");
  const failed = batch.outcomes.filter((o) => o.status !== "completed").length;
  return {
    output,
    title: `${batch.outcomes.length} sub-agent${batch.outcomes.length === 1 ? "" : "s"}${failed ? `, ${failed} not completed` : ""}`,
    metadata: {
      goalTree: ctx.run?.get(goalsKey)?.get(),
      batchId: batch.batchId,
      goalId: batch.goalId,
      subTraceIds: batch.outcomes.map((o) => o.traceId),
      statuses: batch.outcomes.map((o) => o.status),
    },
  };
}

/** The answer when the run is nested as deep as sub-agents may go: the model reads why and goes on. */
function refused(message: string): ToolResult<SubAgentMetadata> {
  return { output: message, title: "sub-agent not started (nesting limit)" };
}

type BatchAsked = Pick<SubTraceRequest, "mode" | "tasks" | "agent" | "background">;

/**
 * Runs the sub-agents this call asked for, tied to the call (its ids, progress and abort), and reports
 * them; a run nested as deep as sub-agents may go is told so instead.
 */
async function runBatch(ctx: ToolContext, asked: BatchAsked): Promise<ToolResult<SubAgentMetadata>> {
  const runner = subTraces(ctx);
  const refusal = runner.refusal();
  if (refusal !== undefined) return refused(refusal);
  const batch = await runner.run({
    ...asked,
    callId: ctx.callId,
    messageId: ctx.messageId,
    progress: (update) => ctx.metadata(update),
    signal: ctx.abort,
  });
  return resultOf(batch, ctx);
}

/** `explore(branches, background?)`: parallel read-only sub-agents, one report per branch. */
export function exploreTool() {
  return defineTool<typeof ExploreInputSchema, SubAgentMetadata>({
    name: "explore",
    // A sub-trace's resume is its feature's to decide; a repeat would run its work again.
    effects: "at-most-once",
    description: [
      "Explore several directions at once: each branch is a read-only sub-agent (read, grep, glob, list) with up to 20",
      "turns, and all run in parallel. Use it to compare approaches or to search different parts of a codebase. You get",
      "one report per branch. Give `background` to start every branch from a short briefing instead of this conversation.",
    ].join(" "),
    input: ExploreInputSchema,
    execute: (input, ctx) =>
      runBatch(ctx, {
        mode: "explore",
        tasks: input.branches,
        ...(input.background !== undefined ? { background: input.background } : {}),
      }),
  });
}

const DELEGATE_DESCRIPTION = [
  "Hand a self-contained task to a sub-agent with its own fresh context and the full tool set (up to 50 turns).",
  "It does not see this conversation: say everything it needs. You get its final report.",
].join(" ");

/**
 * The description with the sub-agents `agent` may name, each with what it is for, when the runtime
 * has any besides the default: a model cannot pick an agent configured for the project unless it is
 * told of it. With only the default the description stays as it was.
 */
export function delegateDescription(offer: ToolOffer): string {
  const targets = delegateTargets(offer.agents);
  if (!targets.some((a) => a.name !== DEFAULT_DELEGATE_AGENT)) return DELEGATE_DESCRIPTION;
  const lines = targets.map((a) => {
    const what = oneLine(a.description, 300);
    const note = a.name === DEFAULT_DELEGATE_AGENT ? " (the default)" : "";
    return `- ${a.name}${note}${what ? `: ${what}` : ""}`;
  });
  return `${DELEGATE_DESCRIPTION}\n\nSub-agents to choose from (pass the name as \`agent\`):\n${lines.join("\n")}`;
}

/** `delegate(task)`: one sub-agent with the full tool set and its own context. */
export function delegateTool() {
  return defineTool<typeof DelegateInputSchema, SubAgentMetadata>({
    name: "delegate",
    effects: "at-most-once",
    description: DELEGATE_DESCRIPTION,
    describe: delegateDescription,
    input: DelegateInputSchema,
    execute: (input, ctx) =>
      runBatch(ctx, { mode: "delegate", tasks: [input.task], ...(input.agent !== undefined ? { agent: input.agent } : {}) }),
  });
}
