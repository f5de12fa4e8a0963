import { z } from "zod";
import { ArborError } from "../errors.js";
import { fitText } from "../model/text.js";

/** Longest step title kept; a step is one line of what to do, not a document. */
export const MAX_STEP_CHARS = 500;
/** More than this is not a plan but a list; PLAN_MAX_STEPS limits what runs. */
export const MAX_PLAN_STEPS = 50;

/**
 * A step as models write it: a string, or an object naming it under one of several keys (models mix
 * both in one list). Objects are loose so any extra key a model adds is ignored.
 */
export const StepInputSchema = z.union([
  z.string(),
  z.looseObject({
    title: z.string().optional(),
    step: z.string().optional(),
    description: z.string().optional(),
    name: z.string().optional(),
    task: z.string().optional(),
    content: z.string().optional(),
  }),
]);
export type StepInput = z.infer<typeof StepInputSchema>;

const TITLE_KEYS = ["title", "step", "name", "task", "description", "content"] as const;

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The title of one step; a title and a description together read "title: description". */
function stepTitle(step: StepInput): string {
  if (typeof step === "string") return oneLine(step);
  const title = oneLine(step.title ?? "");
  const description = oneLine(step.description ?? "");
  if (title && description && description !== title) return `${title}: ${description}`;
  for (const key of TITLE_KEYS) {
    const value = step[key];
    if (typeof value === "string" && oneLine(value)) return oneLine(value);
  }
  return "";
}

/** Plain step titles from mixed string/object steps, in order. Throws `invalid_input` naming the bad step. Pure. */
export function normalizeSteps(steps: readonly StepInput[]): string[] {
  if (steps.length === 0) throw new ArborError("invalid_input", "A plan needs at least one step.");
  if (steps.length > MAX_PLAN_STEPS) {
    throw new ArborError(
      "invalid_input",
      `A plan has at most ${MAX_PLAN_STEPS} steps; this one has ${steps.length}. Merge steps.`,
    );
  }
  return steps.map((step, i) => {
    const title = stepTitle(step);
    if (!title) {
      throw new ArborError("invalid_input", `Step ${i + 1} is empty: give each step as a string or as an object with a "title".`);
    }
    return fitText(title, MAX_STEP_CHARS);
  });
}
