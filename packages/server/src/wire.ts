import type { PendingPermission, SessionInit, SessionPage } from "@arbor/core";
import type { z } from "zod";
import type { CreateSessionRequest, PermissionResponse, SessionPageResponse } from "./schemas.js";

/**
 * The one place where core's camelCase meets the wire's snake_case (SPEC 11). Session metadata and
 * snapshots are seed 001 payloads and cross as they are; run events are already in seed 003's names.
 */

export function sessionInitFromWire(body: z.output<typeof CreateSessionRequest>): SessionInit {
  const init: SessionInit = {};
  if (body.id !== undefined) init.id = body.id;
  if (body.title !== undefined) init.title = body.title;
  if (body.cwd !== undefined) init.cwd = body.cwd;
  if (body.agent_id !== undefined) init.agentId = body.agent_id;
  return init;
}

export function sessionPageToWire(page: SessionPage): z.output<typeof SessionPageResponse> {
  return page.nextCursor === undefined ? { sessions: page.sessions } : { sessions: page.sessions, next_cursor: page.nextCursor };
}

export function permissionToWire(p: PendingPermission): z.output<typeof PermissionResponse> {
  const out: z.output<typeof PermissionResponse> = {
    id: p.id,
    session_id: p.sessionId,
    agent: p.agent,
    permission: p.request.permission,
    patterns: p.request.patterns,
  };
  if (p.tool !== undefined) out.tool = p.tool;
  if (p.callId !== undefined) out.call_id = p.callId;
  if (p.request.always !== undefined) out.always = p.request.always;
  if (p.request.metadata !== undefined) out.metadata = p.request.metadata;
  return out;
}
