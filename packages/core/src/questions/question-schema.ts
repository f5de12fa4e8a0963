import { z } from "zod";
import { ArborError } from "../errors.js";

/**
 * What the `question` tool asks: one question, answered by choosing among `options` (one, or
 * several when `multiple`) or, without options or with `custom`, in the person's own words.
 * One question a call (OpenCode's tool takes a list): every front door (a CLI prompt, a protocol's
 * elicitation, `arbor approve --answer`) answers one question at a time; a model with several
 * calls the tool several times.
 */
export const QuestionOptionSchema = z.strictObject({
  label: z.string().trim().min(1).max(200).describe("What the person picks, shown and returned as written"),
  description: z.string().max(1000).optional().describe("What choosing it means, when the label does not say"),
});
export type QuestionOption = z.infer<typeof QuestionOptionSchema>;

export const QuestionInputSchema = z.strictObject({
  question: z.string().trim().min(1).max(4000).describe("The question, complete and specific"),
  header: z.string().trim().max(60).optional().describe("A very short label for the question (a few words)"),
  options: z.array(QuestionOptionSchema).max(20).optional().describe("The choices; leave out for a free-text answer"),
  multiple: z.boolean().optional().describe("With options: the person may pick several"),
  custom: z.boolean().optional().describe("With options: the person may also answer in their own words (default true)"),
});
export type QuestionInput = z.infer<typeof QuestionInputSchema>;

/** A question waiting for an answer, as the store keeps it (an ask of kind `question`) and `runtime.asks` lists it. */
export interface PendingQuestion extends QuestionInput {
  /** The ask's id (`question_…`), which `arbor approve <id> --answer …` and `POST /api/asks/:id` take. */
  id: string;
  sessionId: string;
  agent: string;
  callId?: string;
}

/**
 * An answer to a question: the chosen labels or the person's own words (one entry unless `multiple`),
 * or a dismissal; the model reads a dismissal's `message`, and the run stops as after a rejection.
 */
export type QuestionAnswer = { answers: string[] } | { dismissed: true; message?: string };

export const QuestionAnswerSchema = z.union([
  z.strictObject({ answers: z.array(z.string().trim().min(1).max(4000)).min(1).max(20) }),
  z.strictObject({ dismissed: z.literal(true), message: z.string().max(4000).optional() }),
]);

/**
 * The answer as the question allows it: labels matched without regard to case are given as written
 * in the options; throws `invalid_input` naming what the question takes, having changed nothing.
 */
export function checkAnswer(question: QuestionInput, answer: QuestionAnswer): QuestionAnswer {
  const parsed = QuestionAnswerSchema.safeParse(answer);
  if (!parsed.success) {
    throw new ArborError(
      "invalid_input",
      `The answer is not valid: give the chosen option(s) or your own words, or dismiss the question (${parsed.error.issues[0]?.message ?? "malformed"}).`,
    );
  }
  const value = parsed.data;
  if ("dismissed" in value) return value;
  const options = question.options ?? [];
  if (!question.multiple && value.answers.length > 1) {
    throw new ArborError("invalid_input", `The question takes one answer, got ${value.answers.length}.`);
  }
  if (options.length === 0) return value;
  const custom = question.custom !== false;
  const answers = value.answers.map((given) => {
    const option = options.find((o) => o.label.toLowerCase() === given.toLowerCase());
    if (option) return option.label;
    if (custom) return given;
    throw new ArborError(
      "invalid_input",
      `"${given}" is not one of the options: ${options.map((o) => `"${o.label}"`).join(", ")}.`,
    );
  });
  return { answers: [...new Set(answers)] };
}

/** What the model reads of an answer. */
export function answerText(question: QuestionInput, answers: readonly string[]): string {
  const said = answers.map((a) => JSON.stringify(a)).join(", ");
  return `The user answered the question ${JSON.stringify(question.question)}: ${said}. Continue with this answer in mind.`;
}
