import { serializeConversation } from "../context/summary-prompt.js";
import { ArborError } from "../errors.js";
import { costOf } from "../llm/catalog.js";
import { callModel, type ModelCallEnv, SILENT_SINK } from "../llm/model-call.js";
import type { ResolvedModel } from "../llm/resolved-model.js";
import { ZERO_USAGE } from "../llm/usage.js";
import type { Message, TokenUsage } from "../model/message.js";

/**
 * The `summary` helper, beside `title`: what a session did, in a few lines, for someone who was not
 * there (a list, a review, a hand-over). Unlike a compaction summary it is for people, not the
 * model, and it is written on demand, never during a run.
 */
export const SESSION_SUMMARY_INSTRUCTION =
  "Summarize the conversation below for someone who was not there, in at most six short bullet points: " +
  "what the user asked for, what was done (files changed, commands run), what was found or decided, and what is left. " +
  "Name files and commands exactly. Reply with the summary only.";

/** The conversation the summary reads: its newest part when the whole is longer (~4 characters a token). */
const MAX_CONVERSATION_CHARS = 200_000;
const SUMMARY_OUTPUT_TOKENS = 600;

export interface SessionSummaryText {
  summary: string;
  usage: TokenUsage;
  /** Dollars, from the catalog; see `costKnown`. */
  cost: number;
  /** False when the model has no known price: `cost` then counts nothing and is not $0. */
  costKnown: boolean;
}

/** Writes the summary of `messages` with `model`; a failure or an empty answer is `summary_failed`. */
export async function summarizeSession(
  env: ModelCallEnv,
  model: ResolvedModel,
  messages: readonly Message[],
): Promise<SessionSummaryText> {
  const whole = serializeConversation(messages);
  if (whole.trim() === "")
    throw new ArborError("invalid_input", "The session has no messages yet: there is nothing to summarize.");
  const conversation =
    whole.length > MAX_CONVERSATION_CHARS ? `[…earlier messages left out…]\n\n${whole.slice(-MAX_CONVERSATION_CHARS)}` : whole;
  const { stream, failure } = await callModel(
    env,
    model.model,
    {
      prompt: [
        { role: "system", content: SESSION_SUMMARY_INSTRUCTION },
        { role: "user", content: [{ type: "text", text: conversation }] },
      ],
      maxOutputTokens: Math.min(SUMMARY_OUTPUT_TOKENS, model.info.limit.output),
      abortSignal: env.signal,
    },
    SILENT_SINK,
  );
  if (stream.aborted) throw new ArborError("aborted", "The summary was aborted.");
  if (failure) {
    throw new ArborError(
      "summary_failed",
      `The summary model ${model.ref} failed: ${failure.message}. Retry, or set pool.summary to another model.`,
    );
  }
  const summary = stream.text.trim();
  if (summary === "") throw new ArborError("summary_failed", `The summary model ${model.ref} returned no text; retry.`);
  const usage = stream.usage ?? { ...ZERO_USAGE };
  return { summary, usage, cost: costOf(usage, model.info.cost), costKnown: model.info.cost !== undefined };
}
