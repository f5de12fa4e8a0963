import { answerFunctionCalls } from "../client-functions/answer-function.js";
import type { ClientFunction, ClientFunctionAsks } from "../client-functions/client-function-asks.js";
import { ArborError, isArborError } from "../errors.js";
import type { RunHandle } from "../loop/run-types.js";
import { type ElicitationAnswer, type PendingElicitations, pendingElicitationOf } from "../mcp/elicitations.js";
import { type McpLoginAsks, pendingMcpLoginOf } from "../mcp/login-asks.js";
import { assertSessionId } from "../model/ids.js";
import { type ApprovalLookup, listScopedApprovals, revokeScopedApproval } from "../permissions/approval-scopes.js";
import { approvalEntry, listApprovals } from "../permissions/approvals.js";
import type { PendingPermission, PendingPermissions } from "../permissions/pending-permissions.js";
import { approvePlan } from "../plan/approve.js";
import { type PlanApprovalAnswer, type PlanGate, pendingPlanOf } from "../plan/plan-gate.js";
import { sessionOfPlan } from "../plan/plan-schema.js";
import { pendingQuestionOf, type QuestionAsks } from "../questions/question-asks.js";
import { askNotFound } from "../store/asks.js";
import type { Store } from "../store/store.js";
import type { RuntimeAccess } from "./access.js";
import type { PendingAsk, RuntimeAsks } from "./asks-api.js";
import type { SessionSlot } from "./session-slot.js";
import type { BusyPolicy, SessionOpOptions } from "./sessions-api.js";

export interface AskMethodDeps {
  store: Store;
  /** A grant or revocation waits for a running turn (or is refused), never lands inside one. */
  slot: SessionSlot;
  pending: PendingPermissions;
  plans: PlanGate;
  elicitations: PendingElicitations;
  mcpLogins: McpLoginAsks;
  questions: QuestionAsks;
  clientFunctions: ClientFunctionAsks;
  /** Starts the run that takes a session up at a client function's call whose run is gone (see `answerFunctionCalls`). */
  takeUpCall(sessionId: string, fromEntryId: string | undefined, functions: ClientFunction[]): RunHandle;
  /** The runtime's `busy` option. */
  defaultBusy: BusyPolicy;
  /** Starts the run that records a plan's answer when the run that asked is gone. */
  resumePlan(sessionId: string, approval: PlanApprovalAnswer & { planId: string }): RunHandle;
  /** The runtime's workspace, where a call without a session looks for project approvals. */
  cwd: string;
  home: string;
  access: RuntimeAccess;
  /** Milliseconds since the epoch: which asks have expired. */
  now(): number;
}

/** `runtime.asks`: answering what runs wait on, and listing, granting and revoking "always" approvals. */
export function askMethods(deps: AskMethodDeps): RuntimeAsks {
  const { store, slot, access } = deps;

  /**
   * Changes a session's approvals: only a caller who may administer the session, and only between
   * turns (a grant landing inside a turn would change what a running tool call was asked under).
   */
  function changeApprovals<T>(sessionId: string, options: SessionOpOptions, doing: string, change: () => Promise<T>) {
    // Entering the slot a turn later, as the session operations do, keeps operations asked together in the order asked.
    const checked = options.principal ? access.session(options.principal, sessionId, "admin", doing) : Promise.resolve();
    return checked.then(() => slot.exclusive(sessionId, options.busy, change));
  }

  /** A session's approvals are looked up in its own workspace; without a session, in the runtime's. */
  async function approvalLookup(sessionId: string | undefined, workspace?: string): Promise<ApprovalLookup> {
    if (sessionId === undefined) return { store, places: { workspace: workspace ?? deps.cwd, home: deps.home } };
    assertSessionId(sessionId);
    const meta = await store.getSession(sessionId);
    if (!meta) throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
    return { store, sessionId, places: { workspace: workspace ?? meta.cwd ?? deps.cwd, home: deps.home } };
  }

  const answerPlan: RuntimeAsks["approvePlan"] = async (planId, approved, reason, options = {}) => {
    if (options.principal) {
      const sessionId = sessionOfPlan(planId);
      if (sessionId) await access.answer(options.principal, sessionId, "Answering a plan");
    }
    return approvePlan(
      {
        gate: deps.plans,
        store,
        // A new run is needed: a driver elsewhere always refuses it; one here is waited for unless refused.
        async resume(sessionId, approval) {
          const driver = await slot.busy(sessionId);
          if (driver && (driver.where === "elsewhere" || (options.busy ?? deps.defaultBusy) === "reject")) {
            throw slot.busyError(sessionId, driver);
          }
          return deps.resumePlan(sessionId, approval);
        },
        // The answer is in the store: a driver of the session, here or elsewhere, takes it from there.
        async resumeIfIdle(sessionId, approval) {
          if (await slot.busy(sessionId)) return undefined;
          return deps.resumePlan(sessionId, approval);
        },
      },
      { planId, approved, ...(reason !== undefined ? { reason } : {}) },
    );
  };

  /** The principal may answer asks of the ask's session; one it cannot see does not exist for it. */
  async function mayAnswer(id: string, principal: SessionOpOptions["principal"], what: string): Promise<void> {
    if (!principal) return;
    const ask = await store.getAsk(id);
    if (!ask) throw askNotFound(id);
    await access.answer(principal, ask.sessionId, what).catch((err: unknown) => {
      throw isArborError(err, "session_not_found") ? askNotFound(id) : err;
    });
  }

  const answerQuestion: RuntimeAsks["answerQuestion"] = async (id, answer, options = {}) => {
    await mayAnswer(id, options.principal, "Answering a question");
    const record = await store.getAsk(id);
    if (!record) throw askNotFound(id);
    if (record.kind !== "question") {
      throw new ArborError("invalid_input", `Ask ${id} is a ${record.kind} ask, not a question: approve or deny it instead.`);
    }
    return deps.questions.answer(id, answer, options.principal?.id);
  };

  return {
    listQuestions: (sessionId) => deps.questions.listAll(sessionId),
    pendingQuestions: (sessionId) => deps.questions.list(sessionId),
    answerQuestion,
    listFunctionCalls: (sessionId) => deps.clientFunctions.listAll(sessionId),
    async answerFunctions(sessionId, outputs, options = {}) {
      if (options.principal) await access.answer(options.principal, sessionId, "Answering a function call");
      return answerFunctionCalls(
        {
          store,
          asks: deps.clientFunctions,
          busy: async (id) => (await slot.busy(id)) !== undefined,
          takeUp: deps.takeUpCall,
        },
        sessionId,
        outputs,
        options.principal?.id,
      );
    },
    listPermissions: (sessionId) => deps.pending.listAll(sessionId),
    async answerPermission(id, reply, options = {}) {
      if (options.principal) {
        const ask = await store.getAsk(id);
        if (!ask) throw new ArborError("ask_not_found", `No ask ${id}: it was never asked, or its session was deleted.`);
        await access.answer(options.principal, ask.sessionId, "Answering a permission ask").catch((err: unknown) => {
          // An ask of a session the principal cannot see does not exist for it either.
          throw isArborError(err, "session_not_found")
            ? new ArborError("ask_not_found", `No ask ${id}: it was never asked, or its session was deleted.`)
            : err;
        });
      }
      return deps.pending.answer(id, reply, options.message, options.scope);
    },
    pendingPermissions: (sessionId) => deps.pending.list(sessionId),
    replyPermission: (id, reply, message, scope) => deps.pending.reply(id, reply, message, scope),
    pendingPlanApprovals: (sessionId) => deps.plans.list(sessionId),
    approvePlan: answerPlan,
    listPlans: (sessionId) => deps.plans.listAll(sessionId),
    async listPending(sessionId) {
      const records = await store.listAsks({ unanswered: true, ...(sessionId === undefined ? {} : { sessionId }) });
      const now = deps.now();
      return (
        records
          // A client function's call is answered by the client program that defined it, not a person.
          .filter((r) => Date.parse(r.expiresAt) > now && r.kind !== "function")
          .map((r): PendingAsk => {
            const common = { id: r.id, sessionId: r.sessionId, createdAt: r.createdAt, expiresAt: r.expiresAt };
            switch (r.kind) {
              case "plan":
                return { kind: "plan", ...common, plan: pendingPlanOf(r) };
              case "question":
                return { kind: "question", ...common, question: pendingQuestionOf(r) };
              case "elicitation":
                return { kind: "elicitation", ...common, elicitation: pendingElicitationOf(r) };
              case "mcp_login":
                return { kind: "mcp_login", ...common, mcpLogin: pendingMcpLoginOf(r) };
              default:
                return { kind: "permission", ...common, permission: r.request as unknown as PendingPermission };
            }
          })
      );
    },
    async answer(id, allow, options = {}) {
      const record = await store.getAsk(id);
      if (!record) throw askNotFound(id);
      if (options.answers !== undefined && record.kind !== "question") {
        throw new ArborError(
          "invalid_input",
          `Ask ${id} is a ${record.kind} ask: it is allowed or denied, not answered with text.`,
        );
      }
      switch (record.kind) {
        case "function":
          throw new ArborError(
            "invalid_input",
            `Ask ${id} waits for a client function's output, not an approval: the client sends it (a function_call_output of the Responses API).`,
          );
        case "question": {
          if (allow && (options.answers === undefined || options.answers.length === 0)) {
            throw new ArborError(
              "invalid_input",
              `Ask ${id} is a question: give the answer (an option or your own words), or dismiss it.`,
            );
          }
          const answer = allow
            ? { answers: options.answers ?? [] }
            : { dismissed: true as const, ...(options.message === undefined ? {} : { message: options.message }) };
          return { kind: "question", record: await answerQuestion(id, answer, options) };
        }
        case "permission":
          await mayAnswer(id, options.principal, "Answering a permission ask");
          return {
            kind: "permission",
            record: await deps.pending.answer(id, allow ? "once" : "reject", options.message),
          };
        case "plan":
          return {
            kind: "plan",
            result: await answerPlan(pendingPlanOf(record).planId, allow, options.message, options),
          };
        case "elicitation": {
          if (options.principal) await access.answer(options.principal, record.sessionId, "Answering an elicitation");
          const answer = (
            allow ? { action: "accept", content: options.content ?? {} } : { action: "decline" }
          ) as ElicitationAnswer;
          return { kind: "elicitation", record: await deps.elicitations.answer(record, answer, options.principal?.id) };
        }
        case "mcp_login": {
          // Only the callback, with the authorization server's code, finishes a login: an answer here declines it.
          if (allow)
            throw new ArborError(
              "invalid_input",
              `Ask ${id} is an MCP login: open its URL and sign in (the login finishes by itself), or answer allow: false to decline it.`,
            );
          if (options.principal) await access.answer(options.principal, record.sessionId, "Declining an MCP login");
          const reason = options.message;
          return {
            kind: "mcp_login",
            record: await deps.mcpLogins.answer(
              record,
              { action: "decline", ...(reason === undefined ? {} : { reason }) },
              options.principal?.id,
            ),
          };
        }
      }
    },
    approvals: async (sessionId) => listApprovals(await store.getActivePath(sessionId)),
    listAllApprovals: async (sessionId) => listScopedApprovals(await approvalLookup(sessionId)),
    grantApproval: (sessionId, approval, options = {}) =>
      changeApprovals(sessionId, options, "Granting an approval", async () => {
        if (!(await store.getSession(sessionId)))
          throw new ArborError("session_not_found", `Session ${sessionId} does not exist.`);
        await store.appendEntry(sessionId, approvalEntry(approval));
      }),
    revokeApproval: (sessionId, approval, options = {}) =>
      changeApprovals(sessionId, options, "Revoking an approval", async () => {
        const current = listApprovals(await store.getActivePath(sessionId));
        const match = current.find(
          (a) => a.agent === approval.agent && a.permission === approval.permission && a.pattern === approval.pattern,
        );
        if (!match) return false;
        const { id: _, scope: __, ...granted } = match;
        await store.appendEntry(sessionId, approvalEntry({ ...granted, revoked: true }));
        return true;
      }),
    async revokeApprovalById(id, sessionId, options = {}) {
      if (options.principal) {
        if (sessionId === undefined) access.require(options.principal, "admin", "Revoking an approval");
        else await access.session(options.principal, sessionId, "admin", "Revoking an approval");
      }
      if (sessionId === undefined) return revokeScopedApproval(await approvalLookup(undefined, options.workspace), id);
      // Looked up inside the slot, so the approval listed is the one in force when it is withdrawn.
      return slot.exclusive(sessionId, undefined, async () =>
        revokeScopedApproval(await approvalLookup(sessionId, options.workspace), id),
      );
    },
  };
}
