import { ArborError } from "../errors.js";
import type { StoredEvent } from "./event-records.js";

/**
 * A session's inbox: messages left for whoever drives the session, by any process, also while
 * another holds the session's lease (the one write a non-holder may make). The driver reads what
 * arrived since its cursor; nothing is removed, so a reader that starts later can still skip it.
 */
export interface InboxMessage {
  /** Unique in the session; a cursor after which later messages are read. */
  id: string;
  text: string;
  /** ISO-8601 with milliseconds. */
  at: string;
}

export interface InboxPage {
  messages: InboxMessage[];
  /** Where the next read continues: the last message's id, or the position given when none arrived. */
  cursor: string;
}

/**
 * The longest a message left for a run waits for it to look, whatever a store's watch of its inbox
 * does: unnoticed next to a model's step, and a look this seldom costs nothing a step would show.
 */
export const INBOX_LOOK_MS = 50;

/** The event type the stores that keep an event log file inbox messages under. */
export const INBOX_EVENT_TYPE = "steer";

/** An inbox cursor of a store that files messages in its event log: an event id. */
export function inboxCursor(after: string): number {
  if (!/^\d{1,15}$/.test(after))
    throw new ArborError("invalid_cursor", `Inbox cursor ${JSON.stringify(after)} is not one this store gave.`);
  return Number(after);
}

/** The inbox messages among event log records. */
export function inboxMessages(records: readonly StoredEvent[]): InboxMessage[] {
  return records.flatMap((r) =>
    r.type === INBOX_EVENT_TYPE && typeof r.data.text === "string"
      ? [{ id: String(r.id), text: r.data.text, at: r.timestamp }]
      : [],
  );
}
