import { randomUUID } from "node:crypto";
import type { ApprovalScope } from "./approvals.js";
import type { PermissionReply, PermissionRequest } from "./ask.js";

export interface PermissionAnswer {
  reply: PermissionReply;
  /** What the person said with a rejection; the model reads it. */
  message?: string;
  /** Where an "always" answer holds (default: the session). */
  scope?: ApprovalScope;
}

interface Waiting {
  pending: PendingPermission;
  resolve(answer: PermissionAnswer): void;
}

/** A permission ask waiting for an answer (`runtime.replyPermission`). */
export interface PendingPermission {
  id: string;
  sessionId: string;
  agent: string;
  tool?: string;
  callId?: string;
  request: PermissionRequest;
}

/**
 * How asks are answered when the runtime has someone to ask (a CLI prompt, `--yes`). Returning
 * undefined leaves the ask pending for `runtime.replyPermission` (the server's route).
 */
export type PermissionHandler = (
  pending: PendingPermission,
  signal: AbortSignal,
) => PermissionReply | PermissionAnswer | undefined | Promise<PermissionReply | PermissionAnswer | undefined>;

/**
 * Asks waiting for a person, across the runs of one runtime. Each has an id that the server's
 * `POST /api/permissions/:id` (or a CLI prompt) answers exactly once; an aborted run withdraws its
 * asks as rejected so no tool waits forever.
 */
export class PendingPermissions {
  private readonly waiting = new Map<string, Waiting>();

  /** Registers an ask and resolves with its reply; `onCreated` sees it before anyone can answer. */
  wait(
    request: Omit<PendingPermission, "id">,
    signal: AbortSignal,
    onCreated: (pending: PendingPermission) => void,
  ): Promise<PermissionAnswer> {
    const pending: PendingPermission = { id: `perm_${randomUUID()}`, ...request };
    return new Promise<PermissionAnswer>((resolve) => {
      if (signal.aborted) {
        resolve({ reply: "reject" });
        return;
      }
      const onAbort = () => this.reply(pending.id, "reject");
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(pending.id, {
        pending,
        resolve: (answer) => {
          signal.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      });
      onCreated(pending);
    });
  }

  reply(id: string, reply: PermissionReply, message?: string, scope?: ApprovalScope): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    this.waiting.delete(id);
    waiting.resolve({
      reply,
      ...(message === undefined ? {} : { message }),
      ...(scope === undefined || reply !== "always" ? {} : { scope }),
    });
    return true;
  }

  list(sessionId?: string): PendingPermission[] {
    const out: PendingPermission[] = [];
    for (const { pending } of this.waiting.values()) {
      if (sessionId === undefined || pending.sessionId === sessionId) out.push(pending);
    }
    return out;
  }
}
