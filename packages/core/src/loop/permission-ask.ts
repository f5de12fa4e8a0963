import { ArborError } from "../errors.js";
import type { PendingPermissions } from "../permissions/pending-permissions.js";
import { createPermissionAsk, type PermissionAsk } from "../tools/ask.js";
import type { PermissionRule } from "../tools/permission.js";
import type { RunEventInput } from "./run-context.js";
import type { AgentDefinition, PermissionHandler } from "./types.js";

/** Connects the pure rules to people: a pending ask with an event, answered by a handler or the API. */
export function permissionFor(
  deps: { pending: PendingPermissions; onPermission: PermissionHandler | undefined },
  sessionId: string,
  agent: AgentDefinition,
  rules: PermissionRule[],
  signal: AbortSignal,
  emit: (e: RunEventInput) => void,
  record: (approval: Record<string, unknown>) => Promise<unknown>,
): PermissionAsk {
  return createPermissionAsk({
    rules,
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
            ...(tool ? { tool } : {}),
            ...(callId ? { call_id: callId } : {}),
            ...(request.metadata ? { metadata: request.metadata } : {}),
          });
          if (!deps.onPermission) return;
          Promise.resolve()
            .then(() => deps.onPermission?.(pending, signal))
            .then(
              (reply) => {
                if (reply) deps.pending.reply(pending.id, reply);
              },
              () => deps.pending.reply(pending.id, "reject"),
            );
        },
      );
      if (answer.reply === "always") {
        for (const pattern of request.always ?? request.patterns) {
          await record({ agent: agent.name, permission: request.permission, pattern, scope: "session" });
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
