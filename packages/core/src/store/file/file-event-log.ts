import { assertSessionId } from "../../model/ids.js";
import {
  checkEventInputs,
  checkListEventsOptions,
  type EventInput,
  type EventWindow,
  type ListEventsOptions,
  numberEvents,
  type StoredEvent,
} from "../event-records.js";
import type { EventFiles } from "./event-file.js";
import type { SessionWrites } from "./session-writes.js";

/**
 * Each session's event log in the file store: written under the session's lock like its entries
 * (so a delete never races an append), read under the same lock without a lease.
 */
export class FileEventLog {
  constructor(
    private readonly files: EventFiles,
    private readonly writes: SessionWrites,
    /** Loads the session, so a log is read or written only for a session that exists. */
    private readonly load: (id: string) => Promise<unknown>,
    private readonly maxEntryBytes: number,
  ) {}

  append(sessionId: string, inputs: EventInput[]): Promise<StoredEvent[]> {
    assertSessionId(sessionId);
    const checked = checkEventInputs(inputs, this.maxEntryBytes);
    return this.writes.locked(sessionId, () => {
      const events = this.files.append(sessionId, checked, (lastId) => numberEvents(checked, lastId, new Date().toISOString()));
      return { value: events, synced: null };
    });
  }

  purge(sessionId: string, window: EventWindow): Promise<number> {
    assertSessionId(sessionId);
    return this.writes.locked(sessionId, () => ({ value: this.files.blank(sessionId, window), synced: null }));
  }

  list(sessionId: string, opts?: ListEventsOptions): Promise<StoredEvent[]> {
    assertSessionId(sessionId);
    const { after, limit } = checkListEventsOptions(opts);
    return this.read(sessionId, () => this.files.page(sessionId, after, limit));
  }

  lastId(sessionId: string): Promise<number> {
    assertSessionId(sessionId);
    return this.read(sessionId, () => this.files.newestId(sessionId));
  }

  /**
   * Reads the session's event log from its file. A read needs no lease (unlike a write): a second
   * process serving a run's stream reads what the driving process logs while it holds the session.
   */
  private read<T>(sessionId: string, read: () => T): Promise<T> {
    return this.writes.lock.run(sessionId, async () => {
      await this.load(sessionId);
      return read();
    });
  }
}
