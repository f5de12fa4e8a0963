import type { AnsweredFunction } from "../client-functions/answer-function.js";
import type { PendingFunctionCall } from "../client-functions/client-function-asks.js";
import type { PendingPermission } from "../loop/types.js";
import type { PendingElicitation } from "../mcp/elicitations.js";
import type { PendingMcpLogin } from "../mcp/login-asks.js";
import type { Approval, ApprovalScope, ListedApproval } from "../permissions/approvals.js";
import type { PermissionReply } from "../permissions/ask.js";
import type { PlanApprovalResult } from "../plan/approve.js";
import type { PendingPlanApproval, PlanApprovalRequest } from "../plan/plan-gate.js";
import type { PendingQuestion, QuestionAnswer } from "../questions/question-schema.js";
import type { AskRecord } from "../store/asks.js";
import type { SessionOpOptions } from "./sessions-api.js";

/** An "always" approval of a session, as `arbor approve --permission` grants it. */
export type SessionApproval = Pick<Approval, "agent" | "permission" | "pattern">;

/** An ask waiting for an answer, of any kind, as every process over the store lists it. */
export type PendingAsk =
  | { kind: "permission"; id: string; sessionId: string; createdAt: string; expiresAt: string; permission: PendingPermission }
  | { kind: "plan"; id: string; sessionId: string; createdAt: string; expiresAt: string; plan: PendingPlanApproval }
  | { kind: "elicitation"; id: string; sessionId: string; createdAt: string; expiresAt: string; elicitation: PendingElicitation }
  | { kind: "question"; id: string; sessionId: string; createdAt: string; expiresAt: string; question: PendingQuestion }
  | { kind: "mcp_login"; id: string; sessionId: string; createdAt: string; expiresAt: string; mcpLogin: PendingMcpLogin };

/** What answering an ask by its id did: the permission, elicitation or question ask's record, or the plan's approval. */
export type AnsweredAsk =
  | { kind: "permission"; record: AskRecord }
  | { kind: "plan"; result: PlanApprovalResult }
  | { kind: "elicitation"; record: AskRecord }
  | { kind: "question"; record: AskRecord }
  | { kind: "mcp_login"; record: AskRecord };

/** `runtime.asks`: what runs wait on a person for (permission asks, plans) and the approvals given. */
export interface RuntimeAsks {
  /**
   * Permission asks waiting for an answer in every process over the store (unanswered, not
   * expired), oldest first; only those of one session when given.
   */
  listPermissions(sessionId?: string): Promise<PendingPermission[]>;
  /**
   * Answers a permission ask raised by a run of any process over the store, exactly once: the run
   * waiting on it goes on (here at once, elsewhere within the runtime's `askPollMs`; a run cut off
   * takes it when resumed). `scope` says where an "always" answer holds (default: the session).
   * Throws `ask_not_found`, `ask_already_answered` or `ask_expired`, having changed nothing.
   */
  answerPermission(
    id: string,
    reply: PermissionReply,
    options?: { message?: string; scope?: ApprovalScope } & Pick<SessionOpOptions, "principal">,
  ): Promise<AskRecord>;
  /** The asks runs of this runtime wait on now, oldest first; only those of one session when given. */
  pendingPermissions(sessionId?: string): PendingPermission[];
  /**
   * Answers an ask a run of this runtime waits on; false when none here waits on that id. The
   * store still decides: when another answer landed first, the run takes that one.
   */
  replyPermission(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope): boolean;
  /**
   * Answers a plan waiting for approval. The run waiting for it goes on; when that run is
   * gone (a restart, an abort) the answer is recorded by a new run over the session, which runs
   * phase 2 or ends with the rejection: `result.run`. Throws `invalid_input`, `plan_not_found`,
   * `plan_not_pending`, and `session_busy` (with `busy: "reject"`, or a driver in another process)
   * when a new run is needed but the session has a driver.
   */
  approvePlan(planId: string, approved: boolean, reason?: string, options?: SessionOpOptions): Promise<PlanApprovalResult>;
  /**
   * Plans waiting for approval in every process over the store (unanswered, not expired), oldest
   * first; only one session's when given. `approvePlan` answers them from any process.
   */
  listPlans(sessionId?: string): Promise<PendingPlanApproval[]>;
  /** Questions the `question` tool asked, unanswered and unexpired, in every process over the store, oldest first. */
  listQuestions(sessionId?: string): Promise<PendingQuestion[]>;
  /** Questions runs of this runtime wait on now, oldest first; only one session's when given. */
  pendingQuestions(sessionId?: string): PendingQuestion[];
  /**
   * Answers a question (the chosen option labels, matched without regard to case, or the person's
   * own words; or a dismissal) from any process, exactly once: the run waiting on it goes on with the
   * answer as the tool's result. Throws `ask_not_found`, `invalid_input` (an answer the question does
   * not take: not one of its options, several for a single choice), `ask_already_answered`, `ask_expired`.
   */
  answerQuestion(id: string, answer: QuestionAnswer, options?: Pick<SessionOpOptions, "principal">): Promise<AskRecord>;
  /** Calls of the client's functions (a run's `clientFunctionTool`s) waiting for its output in every process over the store, oldest first. */
  listFunctionCalls(sessionId: string): Promise<PendingFunctionCall[]>;
  /**
   * Records the client's outputs for calls of its functions in a session, each exactly once, from any
   * process: the run waiting on them goes on; when that run is gone (its process died or was stopped),
   * a run here takes the session up from the calls (`run`). Throws `ask_not_found`, `ask_already_answered`,
   * `ask_expired`, `invalid_input` (the call timed out), having changed nothing.
   */
  answerFunctions(
    sessionId: string,
    outputs: ReadonlyArray<{ callId: string; output: string }>,
    options?: Pick<SessionOpOptions, "principal">,
  ): Promise<AnsweredFunction>;
  /** Every ask waiting for a person's answer (permissions, plans, questions; a client's function calls are `listFunctionCalls`) in every process over the store, oldest first. */
  listPending(sessionId?: string): Promise<PendingAsk[]>;
  /**
   * Answers any ask by its id: a permission ask is allowed once or rejected (`answerPermission`), a
   * plan approved or rejected (`approvePlan`, whose `result.run` carries on when no run waits), an
   * MCP server's elicitation accepted with `content` (its fields; those left out take the form's
   * defaults) or declined. A question takes `answers` (refusing it dismisses the question; allowing
   * it without answers is `invalid_input`). Throws `ask_not_found`, `ask_already_answered`
   * (`plan_not_pending` for a plan), `ask_expired`; `invalid_input` for content that does not fit the
   * elicitation's form, or `answers` given to another kind of ask.
   */
  answer(
    id: string,
    allow: boolean,
    options?: { message?: string; content?: Record<string, unknown>; answers?: string[] } & SessionOpOptions,
  ): Promise<AnsweredAsk>;
  /** Plans that runs of this runtime wait on, oldest first; only one session's when given. */
  pendingPlanApprovals(sessionId?: string): PlanApprovalRequest[];
  /** "Always" approvals in force at the session's leaf, so a user can see what was granted. */
  approvals(sessionId: string): Promise<ListedApproval[]>;
  /**
   * Every approval in force: the session's (when given), its workspace's (else the runtime's
   * `cwd`) and the global ones. Throws `session_not_found`.
   */
  listAllApprovals(sessionId?: string): Promise<ListedApproval[]>;
  /** Grants an "always" approval in the session from its leaf on, as answering "always" would. */
  grantApproval(sessionId: string, approval: SessionApproval, options?: SessionOpOptions): Promise<void>;
  /**
   * Withdraws the approval with this id (as listed by `listAllApprovals` for the same session) and
   * returns it; throws `approval_not_found` having changed nothing when none is in force.
   * `workspace`: the project whose approvals count, over the session's recorded one.
   */
  revokeApprovalById(
    id: string,
    sessionId?: string,
    options?: { workspace?: string } & Pick<SessionOpOptions, "principal">,
  ): Promise<ListedApproval>;
  /** Withdraws an approval from the session's leaf on; false when it was not in force. */
  revokeApproval(sessionId: string, approval: SessionApproval, options?: SessionOpOptions): Promise<boolean>;
}
