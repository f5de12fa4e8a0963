import { DEFAULT_ASK_POLL_MS, DEFAULT_ASK_TTL_MS } from "../asks/durable-wait.js";
import { CLIENT_WAIT_MS, ClientFunctionAsks } from "../client-functions/client-function-asks.js";
import { PendingElicitations } from "../mcp/elicitations.js";
import { McpLoginAsks } from "../mcp/login-asks.js";
import { PendingPermissions } from "../permissions/pending-permissions.js";
import { PlanGate } from "../plan/plan-gate.js";
import { QuestionAsks } from "../questions/question-asks.js";
import type { RuntimeOptions } from "./types.js";

/** The kinds of durable asks a runtime keeps in its store, each waited on by runs and answered through `runtime.asks`. */
export interface DurableAsks {
  pending: PendingPermissions;
  elicitations: PendingElicitations;
  mcpLogins: McpLoginAsks;
  plans: PlanGate;
  questions: QuestionAsks;
  clientFunctions: ClientFunctionAsks;
}

/** All kinds share the store, the clock and the runtime's ask timing, so an ask of any kind expires and is polled alike. */
export function durableAsks(options: RuntimeOptions, now: () => number): DurableAsks {
  const shared = {
    store: options.store,
    now,
    ttlMs: options.askTtlMs ?? DEFAULT_ASK_TTL_MS,
    pollMs: options.askPollMs ?? DEFAULT_ASK_POLL_MS,
  };
  return {
    pending: new PendingPermissions(shared),
    elicitations: new PendingElicitations({ ...shared, ...(options.onElicitation ? { handler: options.onElicitation } : {}) }),
    mcpLogins: new McpLoginAsks({ ...shared, ...(options.onMcpLogin ? { handler: options.onMcpLogin } : {}) }),
    plans: new PlanGate({ ...shared, ...(options.onPlanApproval ? { handler: options.onPlanApproval } : {}) }),
    questions: new QuestionAsks({ ...shared, ...(options.onQuestion ? { handler: options.onQuestion } : {}) }),
    // A client program, not a person, answers its function calls: it gets at most the client's wait.
    clientFunctions: new ClientFunctionAsks({ ...shared, ttlMs: Math.min(shared.ttlMs, CLIENT_WAIT_MS) }),
  };
}
