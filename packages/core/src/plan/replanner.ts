import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { z } from "zod";
import { generate, type ModelCallEnv } from "../llm/model-call.js";
import { toUsage } from "../llm/stream-step.js";
import type { TokenUsage } from "../model/message.js";
import { cutText } from "../model/text.js";
import { normalizeSteps, StepInputSchema } from "./normalize-steps.js";
import { type PlanStep, RESULT_CHARS } from "./plan-schema.js";

/** The replanner's decision, validated at the model boundary; missing fields take their defaults. */
export const ReplanDecisionSchema = z.looseObject({
  action: z.enum(["continue", "revise", "finish"]),
  /** action=finish: the final answer to the user. */
  response: z.string().default(""),
  /** action=revise: the steps that replace the remaining ones. */
  revised_steps: z.array(StepInputSchema).default([]),
  reason: z.string().default(""),
});
export type ReplanDecision = z.infer<typeof ReplanDecisionSchema>;

export const REPLAN_TOOL = "replan";

const REPLANNER_SYSTEM = [
  "You review a plan that is being carried out step by step, after a step that may have gone wrong.",
  `Decide by calling the ${REPLAN_TOOL} tool once:`,
  '- "continue": the remaining steps still make sense as they are.',
  '- "revise": replace the remaining steps with revised_steps (the completed ones stay).',
  '- "finish": the task is already achieved (or cannot go further); put the final answer to the user in response.',
  "Always give a short reason.",
].join("\n");

/** A finished step as the replanner and later executors see it. */
export interface PastStep {
  title: string;
  status: PlanStep["status"];
  result: string;
}

/**
 * When to save the replanner call: none when at most one step remains (nothing worth
 * reordering) or when the step just run succeeded without an `[ERROR]` in its report. Pure.
 */
export function shouldSkipReplan(last: PastStep, remaining: number): boolean {
  if (remaining <= 1) return true;
  return last.status === "completed" && !last.result.includes("[ERROR]");
}

/** The replanner's prompt: the plan, what each finished step reported (cut), what is left. Pure. */
export function replannerPrompt(title: string, past: readonly PastStep[], remaining: readonly string[]): string {
  const done = past.map((s, i) => `${i + 1}. ${s.title} [${s.status}]\n${cutText(s.result, RESULT_CHARS)}`).join("\n\n");
  const left = remaining.map((t, i) => `${past.length + i + 1}. ${t}`).join("\n");
  return `Replan: ${title}\n\n## Finished steps\n${done}\n\n## Remaining steps\n${left}`;
}

/**
 * The decision tool, made at each (rare) replanner call: converting its schema to JSON Schema at
 * import cost every process that loads the runtime a few ms before its first model request.
 */
function decisionTool() {
  return {
    type: "function" as const,
    name: REPLAN_TOOL,
    description: "Record the decision about the rest of the plan.",
    inputSchema: z.toJSONSchema(
      z.strictObject({
        action: z.enum(["continue", "revise", "finish"]),
        response: z.string().describe("action=finish: the final answer to the user."),
        revised_steps: z.array(z.string()).describe("action=revise: the new remaining steps, in order."),
        reason: z.string(),
      }),
      { target: "draft-7" },
    ) as never,
  };
}

/** The first `{…}` in a text: models that answer in prose around their JSON still count. */
function jsonIn(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("the replanner answered without a decision");
  return JSON.parse(text.slice(start, end + 1));
}

export interface ReplanCall {
  decision: ReplanDecision;
  /** The revision's steps, normalised (empty unless action=revise). */
  steps: string[];
  usage: TokenUsage | undefined;
}

/**
 * One structured-output call: the decision as a forced tool call (what OpenAI-compatible servers
 * and the scripted model both support), or JSON in the text when a model ignores the tool. Throws
 * when the call fails or the answer is not a valid decision; the caller then continues.
 */
export async function callReplanner(
  env: ModelCallEnv,
  model: LanguageModelV4,
  prompt: string,
  options: { maxOutputTokens: number },
): Promise<ReplanCall> {
  const call: Omit<LanguageModelV4CallOptions, "abortSignal"> = {
    prompt: [
      { role: "system", content: REPLANNER_SYSTEM },
      { role: "user", content: [{ type: "text", text: prompt }] },
    ],
    tools: [decisionTool()],
    toolChoice: { type: "tool", toolName: REPLAN_TOOL },
    maxOutputTokens: options.maxOutputTokens,
    temperature: 0,
  };
  const result = await generate(env, model, call);
  const toolCall = result.content.find((c) => c.type === "tool-call" && c.toolName === REPLAN_TOOL);
  const raw =
    toolCall?.type === "tool-call"
      ? JSON.parse(toolCall.input)
      : jsonIn(result.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
  const decision = ReplanDecisionSchema.parse(raw);
  const steps = decision.action === "revise" && decision.revised_steps.length > 0 ? normalizeSteps(decision.revised_steps) : [];
  return { decision, steps, usage: result.usage ? toUsage(result.usage) : undefined };
}
