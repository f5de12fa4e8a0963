import type { LanguageModelV4FunctionTool } from "@ai-sdk/provider";
import { ArborError } from "../errors.js";
import type { Approval, ApprovalRule } from "../permissions/approvals.js";
import { createPermissionAsk, type PermissionAsk } from "../permissions/ask.js";
import type { PermissionAnswer } from "../permissions/pending-permissions.js";
import { disabledTools, type PermissionRule } from "../permissions/permission.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { RunEventInput } from "./run-context.js";
import type { RunDeps } from "./run-deps.js";
import type { AgentDefinition } from "./types.js";

/** The tools offered to the model: the run's registry's, less those the run's rules deny outright. */
export function functionTools(
  registry: ToolRegistry,
  agents: RunDeps["agents"],
  rules: readonly PermissionRule[],
): { tools: LanguageModelV4FunctionTool[]; names: string[] } {
  const all = registry.names();
  const disabled = disabledTools(all, rules);
  // The runtime's agents go with the list, so `delegate` names the sub-agents this project configured.
  const infos = registry.list((name) => !disabled.has(name), { agents: Object.values(agents) });
  return {
    tools: infos.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as never,
    })),
    names: infos.map((t) => t.name),
  };
}

/** Connects the pure rules to people: a pending ask with an event, answered by a handler or the API. */
export function permissionFor(
  deps: RunDeps,
  sessionId: string,
  agent: AgentDefinition,
  rules: PermissionRule[],
  approvals: readonly ApprovalRule[],
  signal: AbortSignal,
  emit: (e: RunEventInput) => void,
  record: (approval: Omit<Approval, "revoked">) => Promise<unknown>,
): PermissionAsk {
  return createPermissionAsk({
    rules,
    approvals,
    agent: agent.name,
    prompt: async (request) => {
      const tool = typeof request.metadata?.tool === "string" ? request.metadata.tool : undefined;
      const callId = typeof request.metadata?.callId === "string" ? request.metadata.callId : undefined;
      const answer = await deps.pending.wait(
        { sessionId, agent: agent.name, request, ...(tool ? { tool } : {}), ...(callId ? { callId } : {}) },
        signal,
        (pending) => {
          emit({
            type: "permission_request",
            id: pending.id,
            permission: request.permission,
            patterns: request.patterns,
            ...(request.always ? { always: request.always } : {}),
            ...(tool ? { tool } : {}),
            ...(callId ? { call_id: callId } : {}),
            ...(request.metadata ? { metadata: request.metadata } : {}),
          });
          if (!deps.onPermission) return;
          Promise.resolve()
            .then(() => deps.onPermission?.(pending, signal))
            .then(
              (reply) => {
                const answer: PermissionAnswer | undefined = typeof reply === "string" ? { reply } : reply;
                if (answer) deps.pending.reply(pending.id, answer.reply, answer.message, answer.scope);
              },
              () => deps.pending.reply(pending.id, "reject"),
            );
        },
      );
      // An ask withdrawn because the run stopped was answered by nobody: the call is interrupted, and
      // the model must not read that the user rejected it.
      if (signal.aborted && answer.reply === "reject" && answer.message === undefined) {
        throw new ArborError("aborted", "The run stopped while the ask waited for an answer.");
      }
      if (answer.reply === "always") {
        for (const pattern of request.always ?? request.patterns) {
          await record({
            agent: agent.name,
            permission: request.permission,
            pattern,
            scope: answer.scope ?? "session",
            ...(request.alwaysWildcard ? { wildcard: true } : {}),
          });
        }
      }
      if (answer.reply === "reject" && answer.message) {
        throw new ArborError(
          "permission_rejected",
          `The user rejected ${request.permission} for ${request.patterns.join(", ") || "this request"} and said: ${answer.message}`,
        );
      }
      return answer.reply;
    },
  });
}
