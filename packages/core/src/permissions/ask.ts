import { ArborError, isArborError } from "../errors.js";
import type { ApprovalRule } from "./approvals.js";
import { evaluateRequest, type PermissionDecision, type PermissionRule } from "./permission.js";

/**
 * What a tool asks the permission layer before it acts.
 * `patterns` are what the rules are matched against (a path, a command, a URL); `always` are the
 * patterns an "always" answer would approve for later, when they differ from `patterns`. They are
 * shown with the ask and approve exactly their text, unless `alwaysWildcard` says the ask showed a
 * wildcard (a folder's `dir/*`): an approval is never wider than what the user saw.
 */
export interface PermissionRequest {
  permission: string;
  patterns: string[];
  always?: string[];
  alwaysWildcard?: boolean;
  metadata?: Record<string, unknown>;
}

/** How a person (or a policy standing in for one) answers an ask. */
export type PermissionReply = "once" | "always" | "reject";

export interface PermissionAskOptions {
  /** The merged rules for this agent and session (see `agentPermissions`). */
  rules: readonly PermissionRule[];
  /**
   * Called only when the rules say `ask`. The runtime turns it into a pending request with an id and
   * a `permission_request` event; a CLI prompts, or answers "reject" when nobody can answer.
   */
  prompt(request: PermissionRequest, decision: PermissionDecision): Promise<PermissionReply>;
  /** Named in messages so the model and the user know whose rules refused. */
  agent?: string;
  /** "Always" answers given before this instance (recorded in the session, the workspace or globally). */
  approvals?: readonly ApprovalRule[];
}

export interface PermissionAsk {
  /**
   * The `ToolContext.ask` of every call made under these rules. `onPrompt` is called when a person is
   * about to be asked (a rule allows or denies at once): what follows is time spent waiting for them.
   */
  ask(request: PermissionRequest, onPrompt?: () => void): Promise<void>;
  /** What "always" answers settle, those given before and during this instance's life, in order. */
  approvals(): ApprovalRule[];
  /** The rules this instance enforces, without its approvals: a sub-agent's cap (see `capToCaller`). */
  rules(): PermissionRule[];
}

/**
 * Connects the pure rules to a tool's `ask`: allow resolves at once, deny rejects with
 * `permission_denied`, ask waits for `prompt`; "reject" rejects with `permission_rejected`, "always"
 * also allows the request's `always` patterns (or its patterns) where they would be asked, for the
 * rest of this instance's life. One instance per session and agent keeps an approval from leaking to another agent
 * (OpenCode #9554); persisting approvals is the runtime's job.
 */
export function createPermissionAsk(options: PermissionAskOptions): PermissionAsk {
  const approved: ApprovalRule[] = [...(options.approvals ?? [])];
  const who = options.agent ? ` for agent ${options.agent}` : "";
  return {
    approvals: () => approved.map((rule) => ({ ...rule })),
    rules: () => options.rules.map((rule) => ({ ...rule })),
    async ask(request, onPrompt) {
      const decision = evaluateRequest(options.rules, request, approved);
      if (decision.action === "allow") return;
      const what = `${request.permission} for ${decision.pattern === undefined ? "this request" : `"${decision.pattern}"`}`;
      if (decision.action === "deny") {
        const rule = decision.rule ? ` (rule: ${decision.rule.permission} ${decision.rule.pattern} → deny)` : "";
        throw new ArborError(
          "permission_denied",
          `Permission denied${who}: ${what} is not allowed${rule}. Do not retry it; take another approach or tell the user what you need.`,
          { permission: request.permission, patterns: request.patterns },
        );
      }
      onPrompt?.();
      const reply = await options.prompt(request, decision);
      if (reply === "reject") {
        throw new ArborError(
          "permission_rejected",
          `The user rejected ${request.permission} for ${request.patterns.map((p) => `"${p}"`).join(", ") || "this request"}. ` +
            "Do not retry it; ask the user how to proceed.",
          { permission: request.permission, patterns: request.patterns },
        );
      }
      if (reply === "always") {
        for (const pattern of request.always ?? request.patterns) {
          approved.push({ permission: request.permission, pattern, ...(request.alwaysWildcard ? { wildcard: true } : {}) });
        }
      }
    },
  };
}

/** A refusal, by a rule or by the user: the loop records it and may stop the run rather than let the model work around it. */
export function isPermissionRefusal(err: unknown): err is ArborError {
  return isArborError(err, "permission_rejected") || isArborError(err, "permission_denied");
}
