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

/** The event type the stores that keep an event log file inbox messages under. */
export const INBOX_EVENT_TYPE = "steer";
