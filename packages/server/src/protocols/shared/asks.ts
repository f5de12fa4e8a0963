import type { PermissionReply, RunEvent } from "@arbor/core";
import type { ApprovalScope } from "@arbor/core/session";
import type { RunEventOf } from "@arbor/core/wire";

/**
 * Something a run waits on a person for, as every protocol reads it off the run's events: a
 * permission ask (before a tool call) or a plan waiting for approval. Each protocol shows it in its
 * own approval shape and reads the person's answer back into an `AskAnswer`.
 */
export type Ask =
  | { kind: "permission"; id: string; event: RunEventOf<"permission_request"> }
  | { kind: "plan"; planId: string; event: RunEventOf<"plan_approval_request"> };

/** Which ask an answer is for. */
export type AskRef = { kind: "permission"; id: string } | { kind: "plan"; planId: string };

/** A person's answer to an ask, whichever protocol carried it. */
export type AskAnswer =
  | { kind: "permission"; id: string; reply: PermissionReply; message?: string; scope?: ApprovalScope }
  | { kind: "plan"; planId: string; approved: boolean; reason?: string };

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
    default:
      return undefined;
  }
}

export function refOf(ask: Ask | AskAnswer): AskRef {
  return ask.kind === "permission" ? { kind: "permission", id: ask.id } : { kind: "plan", planId: ask.planId };
}
