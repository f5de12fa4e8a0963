import { z } from "zod";
import { ArborError } from "../errors.js";
import { appendMessage } from "../loop/journal.js";
import { queuedUserReminder } from "../loop/reminders.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
import { assertSessionId } from "../model/ids.js";
import type { SessionDriver } from "../store/lease.js";
import type { Store } from "../store/store.js";

/*
 * A message for a running session goes to the session's inbox in the store: any process may leave
 * one while another holds the session's lease, and the driving run reads it at its next step
 * boundary. The journal itself is written only by the driver, so the message never lands between
 * a step's assistant message and its tool results.
 */

/** A steering message recorded for a running session. */
export interface SteerResult {
  sessionId: string;
  /** The message's id in the session's inbox. */
  messageId: string;
}

/** Long enough for a pasted paragraph or a log excerpt; a whole file belongs in the workspace. */
const MAX_STEER_CHARS = 100_000;

const SteerText = z
  .string({ error: "The steering message must be text." })
  .trim()
  .min(1, "The steering message is empty; say what the agent should do differently.")
  .max(MAX_STEER_CHARS, `The steering message is over ${MAX_STEER_CHARS} characters; put the material in a file.`);

/**
 * Records a message for the run driving `sessionId`, here or in another process. Throws, writing
 * nothing: `invalid_id`, `invalid_input` (empty or oversized text), `session_not_found`, and
 * `session_not_running` when no run drives the session (the caller should start one instead).
 */
export async function steerSession(
  store: Store,
  busy: (sessionId: string) => Promise<SessionDriver | undefined>,
  sessionId: string,
  text: unknown,
): Promise<SteerResult> {
  assertSessionId(sessionId);
  const parsed = SteerText.safeParse(text);
  if (!parsed.success) throw new ArborError("invalid_input", parsed.error.issues[0]?.message ?? "Invalid steering message.");
  const meta = await store.getSession(sessionId);
  if (!meta)
    throw new ArborError("session_not_found", `No session ${sessionId} in this store; list them with arbor sessions list.`);
  // Stored as running with no driver is a run cut off by a dead process: nothing would read the message.
  if (meta.status !== "running" || !(await busy(sessionId))) {
    throw new ArborError(
      "session_not_running",
      `Session ${sessionId} has no run in progress (it is ${meta.status === "running" ? "interrupted" : meta.status}), so there is nothing to steer; start a run with this message instead (arbor run --session ${sessionId} "…" or POST /api/chat with session_id).`,
    );
  }
  const posted = await store.postInbox(sessionId, parsed.data);
  return { sessionId, messageId: posted.id };
}

/**
 * The run's side: remembers where the session's inbox stood when the loop began, and before each
 * step writes every message left since as a user message wrapped in a reminder. A run that would
 * end with messages still unread takes another step to answer them.
 */
export function steeringExtension(): RunExtension {
  let cursor: string | undefined;
  let unread: string[] = [];

  async function fetchNew(ctx: RunContext): Promise<void> {
    if (cursor === undefined) return;
    const page = await ctx.store.readInbox(ctx.sessionId, cursor);
    cursor = page.cursor;
    for (let i = 0; i < page.messages.length; i++) unread.push(page.messages[i]!.text);
  }

  return {
    name: "steering",
    async beforeStep(ctx) {
      // fetchNew's work, inline: it runs every step, and a call of it is a promise more to wait on. The
      // store may know that nothing arrived (a watched folder), which spares a read nearly every step.
      if (cursor !== undefined && ctx.store.inboxMayHaveNew?.(ctx.sessionId, cursor) !== false) {
        const page = await ctx.store.readInbox(ctx.sessionId, cursor);
        cursor = page.cursor;
        for (let i = 0; i < page.messages.length; i++) unread.push(page.messages[i]!.text);
      }
      // Nearly every step finds nothing: the empty list is kept rather than replaced.
      if (unread.length === 0) return;
      const texts = unread;
      unread = [];
      for (const text of texts) {
        await appendMessage(ctx, { role: "user", content: [{ type: "text", text: queuedUserReminder(text) }] });
      }
    },
    async around(ctx, loop) {
      cursor = (await ctx.store.readInbox(ctx.sessionId)).cursor;
      let outcome = await loop();
      while (outcome.status === "done" && outcome.stopReason === "finished" && !ctx.signal.aborted) {
        await fetchNew(ctx);
        if (unread.length === 0) break;
        outcome = await loop();
      }
      return outcome;
    },
  };
}
