import { ArborError } from "../errors.js";
import type { RunExtension } from "../loop/run-context.js";
import type { Entry } from "../model/entry.js";
import { runKey } from "../tools/run-values.js";
import { defineTool } from "../tools/tool.js";
import type { QuestionAsks, QuestionWait } from "./question-asks.js";
import { answerText, type QuestionInput, QuestionInputSchema } from "./question-schema.js";

export const QUESTION_TOOL = "question";

/** What a run offers the `question` tool: asking its user and waiting for the answer. */
export interface RunQuestions {
  ask(input: QuestionInput, callId: string, signal: AbortSignal): Promise<{ askId?: string; result: QuestionWait }>;
}

export const questionsKey = runKey<RunQuestions>("questions");

/**
 * Asks the user of the run a question and returns the answer as the result. The run waits as on a
 * permission ask: the question is a durable ask answered by its id from any process over the store,
 * and a run cut off meanwhile waits on the same question when resumed. Nothing changes in the world,
 * so a resumed run simply asks again (`effects: none`) and finds the record its first attempt made.
 */
export function questionTool() {
  return defineTool({
    name: QUESTION_TOOL,
    effects: "none",
    description:
      "Ask the user a question and wait for the answer: to clarify an ambiguous request, to learn a preference, or to let " +
      "them choose between approaches. Give options (each a short label, with a description when needed) for a choice, " +
      "set multiple for several, or leave options out for a free-text answer. With options the user may still answer in " +
      "their own words unless custom is false. Ask one question a call; do not ask what you can find out yourself.",
    input: QuestionInputSchema,
    async execute(input, ctx) {
      const run = ctx.run?.get(questionsKey);
      if (!run) throw new ArborError("invalid_input", "The question tool asks the user of a run; it only works inside one.");
      const { askId, result: answer } = await run.ask(input, ctx.callId, ctx.abort);
      if ("aborted" in answer) throw new ArborError("aborted", "The run stopped while the question waited for an answer.");
      if ("dismissed" in answer) {
        throw new ArborError(
          "permission_rejected",
          `The user dismissed the question${answer.message ? ` and said: ${answer.message}` : " without answering"}. Do not ask it again; go on without it or ask the user how to proceed.`,
        );
      }
      return {
        output: answerText(input, answer.answers),
        title: input.header ?? input.question.slice(0, 80),
        // The ask's id marks its answer as read by the model (see `takenAnswers`).
        metadata: { answers: answer.answers, ...(askId === undefined ? {} : { askId }) },
      };
    },
  });
}

/** The `question` tool as a feature of a run: its questions go to `asks`, announced with a `question_request` event. */
export function questionExtension(asks: QuestionAsks): RunExtension {
  return {
    name: "questions",
    tools: [questionTool()],
    start(ctx) {
      ctx.values.set(questionsKey, {
        ask: async (input, callId, signal) =>
          asks.wait(
            { ...input, sessionId: ctx.sessionId, agent: ctx.agent.name, callId },
            signal,
            (pending) =>
              ctx.emit({
                type: "question_request",
                id: pending.id,
                question: input.question,
                ...(input.header !== undefined ? { header: input.header } : {}),
                ...(input.options !== undefined ? { options: input.options } : {}),
                multiple: input.multiple ?? false,
                custom: input.options === undefined || input.custom !== false,
                call_id: callId,
              }),
            takenAnswers(await ctx.store.getActivePath(ctx.sessionId)),
          ),
      });
    },
  };
}

/** The asks whose answers the session's model has read: the `askId` of each question result on the path. */
export function takenAnswers(path: readonly Entry[]): Set<string> {
  const taken = new Set<string>();
  for (const entry of path) {
    if (entry.type !== "message" || entry.message.role !== "tool") continue;
    for (const part of entry.message.content) {
      const askId = (part as { metadata?: { askId?: unknown } }).metadata?.askId;
      if (part.toolName === QUESTION_TOOL && typeof askId === "string") taken.add(askId);
    }
  }
  return taken;
}
