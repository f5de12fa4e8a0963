import type { PendingQuestion, QuestionAnswer } from "@arbor/core/session";
import type { Io } from "../io.js";
import type { RunView } from "../render/live.js";
import { terminalAnswerer } from "./answerer.js";

/** The runtime's `onQuestion` as the CLI answers it. */
export type QuestionHandler = (question: PendingQuestion, signal: AbortSignal) => Promise<QuestionAnswer | undefined>;

/** The question as the terminal asks it: numbered options, and how to answer. */
export function questionPrompt(q: Pick<PendingQuestion, "question" | "header" | "options" | "multiple" | "custom">): string {
  const lines = [`? ${q.header ? `[${q.header}] ` : ""}${q.question}`];
  const options = q.options ?? [];
  options.forEach((o, i) => {
    lines.push(`  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ""}`);
  });
  const how =
    options.length === 0
      ? "your answer"
      : `${q.multiple ? "numbers, separated by commas" : "a number"}${q.custom === false ? "" : ", or your own words"}`;
  lines.push(`  answer (${how}; empty dismisses): `);
  return lines.join("\n");
}

/**
 * What the person typed as the question's answer: option numbers (several only when `multiple`)
 * become their labels, anything else is their own words (labels are matched by the runtime).
 */
export function typedAnswer(q: Pick<PendingQuestion, "options" | "multiple">, typed: string): QuestionAnswer {
  const text = typed.trim();
  if (text === "") return { dismissed: true };
  const options = q.options ?? [];
  const parts = q.multiple ? text.split(",").map((p) => p.trim()) : [text];
  const numbered = parts.map((p) => (/^\d+$/.test(p) ? options[Number(p) - 1]?.label : undefined));
  if (options.length > 0 && numbered.every((label) => label !== undefined)) return { answers: numbered as string[] };
  return { answers: q.multiple ? parts.filter((p) => p !== "") : [text] };
}

/**
 * Who answers the agent's questions (see `terminalAnswerer`): a question nobody sees waits in the
 * store (answered later with `arbor approve <id> --answer …`). `--yes` answers permissions, never
 * questions: only a person can.
 */
export function createQuestionHandler(opts: { io: Io; view: RunView; onNobody: (q: PendingQuestion) => void }): QuestionHandler {
  return terminalAnswerer<PendingQuestion, QuestionAnswer>({
    ...opts,
    person: async (prompt, question, signal) => {
      const typed = await prompt(questionPrompt(question), signal);
      if (typed === undefined || signal.aborted) return { dismissed: true };
      return typedAnswer(question, typed);
    },
  });
}
