import { cutText } from "../model/text.js";
import { RESULT_CHARS } from "./plan-schema.js";
import type { PastStep } from "./replanner.js";

/** The executor's system text: what its role is and what its last message is for. */
export const EXECUTOR_SYSTEM = [
  "You are an executor: you carry out one step of a plan made by another agent, with your tools.",
  "Do this step only; the other steps are done by others. If the step cannot be done, call plan_update with",
  'status "failed" and say why. End with a short report of what you did and found, with the facts and file paths',
  "the next steps need: it is all that is kept of your work. Start the report with [ERROR] if something went wrong.",
].join(" ");

/**
 * The executor's task: the plan's title, the current step and
 * every earlier step's result cut to 1,000 characters. It is the sub-trace's first message, so the
 * trace shows what the executor was told. Pure.
 */
export function executorPrompt(input: {
  title: string;
  step: { id: number; title: string };
  position: number;
  total: number;
  past: readonly PastStep[];
}): string {
  const lines = [`Plan: ${input.title}`, `Step ${input.position} of ${input.total}: ${input.step.title}`];
  if (input.past.length > 0) {
    lines.push("", "Results of the earlier steps:");
    input.past.forEach((s, i) => {
      lines.push(`${i + 1}. ${s.title} [${s.status}]`, cutText(s.result, RESULT_CHARS));
    });
  }
  lines.push("", `Now carry out step ${input.position}: ${input.step.title}`);
  return lines.join("\n");
}
