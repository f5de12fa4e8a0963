import type { PermissionReply, RunEvent } from "@arbor/core";
import type { ApprovalScope, QuestionAnswer } from "@arbor/core/session";
import type { RunEventOf } from "@arbor/core/wire";

/**
 * Something a run waits on a person for, as every protocol reads it off the run's events: a
 * permission ask (before a tool call), a plan waiting for approval, or the agent's question (the
 * `question` tool). Each protocol shows it in its own approval shape and reads the person's answer
 * back into an `AskAnswer`; one that cannot show a question says so and names where to answer it.
 */
export type Ask =
  | { kind: "permission"; id: string; event: RunEventOf<"permission_request"> }
  | { kind: "plan"; planId: string; event: RunEventOf<"plan_approval_request"> }
  | { kind: "question"; id: string; event: RunEventOf<"question_request"> };

/** Which ask an answer is for. */
export type AskRef = { kind: "permission"; id: string } | { kind: "plan"; planId: string } | { kind: "question"; id: string };

/** A person's answer to an ask, whichever protocol carried it. */
export type AskAnswer =
  | { kind: "permission"; id: string; reply: PermissionReply; message?: string; scope?: ApprovalScope }
  | { kind: "plan"; planId: string; approved: boolean; reason?: string }
  | { kind: "question"; id: string; answer: QuestionAnswer };

/**
 * How a protocol reads its client's answer to an ask back into the runtime's terms (showing an ask
 * is its run event wire's `ask`). A malformed answer is the client's error, thrown as an ApiError.
 */
export type AnswerOf<Answer> = (answer: Answer) => AskAnswer;

/** The ask a run event announces; undefined for every other event. */
export function askOf(event: RunEvent): Ask | undefined {
  switch (event.type) {
    case "permission_request":
      return { kind: "permission", id: event.id, event };
    case "plan_approval_request":
      return { kind: "plan", planId: event.plan_id, event };
    case "question_request":
      return { kind: "question", id: event.id, event };
    default:
      return undefined;
  }
}

export function refOf(ask: Ask | AskAnswer): AskRef {
  return ask.kind === "plan" ? { kind: "plan", planId: ask.planId } : { kind: ask.kind, id: ask.id };
}

/** The id a person answers an ask by from any door (`arbor approve`, `POST /api/asks/:id`). */
export function askIdOf(ask: Ask | AskRef): string {
  return ask.kind === "plan" ? ask.planId : ask.id;
}

/** A question as one line of text: the question and its choices. */
export function questionText(event: RunEventOf<"question_request">): string {
  const options = event.options?.map((o) => o.label).join(" / ");
  return `${event.question}${options ? ` (${options}${event.multiple ? "; several may be chosen" : ""})` : ""}`;
}

/**
 * What a protocol that cannot carry a question's answer tells its client: the question, and where it
 * is answered instead. The run keeps waiting on it (a durable ask), so any other door may answer.
 */
export function questionElsewhere(event: RunEventOf<"question_request">, protocol: string): string {
  return `The agent asks: ${questionText(event)}. ${protocol} cannot carry the answer to a question: answer it with \`arbor approve ${event.id} --answer <text>\` or POST /api/asks/${event.id}.`;
}
