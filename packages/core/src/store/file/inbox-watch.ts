import { type FSWatcher, watch } from "node:fs";
import { INBOX_LOOK_MS } from "../inbox.js";

interface Watched {
  /** Null while the folder is missing (a session nobody steered yet) or cannot be watched. */
  watcher: FSWatcher | null;
  /** Something may have arrived since the last read. */
  changed: boolean;
  /** The newest message's name when the folder was last listed ("" for none). */
  newest: string;
  /** When the run looks anyway (ms, `now`'s clock): an event is delivered only when the event loop turns, and a busy run may not let it. */
  lookAt: number;
}

/**
 * For the sessions this store drives, whether their inbox folder may hold something new since the run
 * last read it, so a step that finds nothing new costs a boolean instead of a stat of the folder. A
 * watch (inotify on Linux) on the folder marks a session changed when any process leaves a message;
 * this store's own posts mark it directly; and a run looks at least every `lookMs` in any case, which
 * also covers a folder that does not exist yet or cannot be watched. A watch lives from the first read
 * after the run takes the session's lease until the lease ends; the folder cannot be removed meanwhile,
 * since deleting a session is refused while someone drives it.
 */
export class InboxWatch {
  private readonly sessions = new Map<string, Watched>();

  constructor(
    private readonly lookMs = INBOX_LOOK_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * False only when the session's inbox holds nothing after `after`: nothing can have arrived since the
   * folder was last listed (by any reader), and nothing then listed sorts after `after`.
   */
  mayHaveNew(id: string, after: string): boolean {
    const w = this.sessions.get(id);
    return w === undefined || w.changed || w.newest > after || this.now() >= w.lookAt;
  }

  /**
   * Called just before the inbox folder `dir` of a session this store drives is listed: from here on a
   * new message marks the session changed, so what the listing does not see is caught by the next check.
   * `listed` follows with what it found.
   */
  reading(id: string, dir: string, exists: boolean): void {
    let w = this.sessions.get(id);
    if (w === undefined) {
      w = { watcher: null, changed: false, newest: "", lookAt: 0 };
      this.sessions.set(id, w);
    }
    w.changed = false;
    w.lookAt = this.now() + this.lookMs;
    // A missing folder is not watched: fs.watch would throw (an error built, with its stack, every look).
    if (w.watcher === null && exists) w.watcher = this.watchFolder(dir, w);
  }

  listed(id: string, newest: string): void {
    const w = this.sessions.get(id);
    if (w !== undefined) w.newest = newest;
  }

  private watchFolder(dir: string, w: Watched): FSWatcher | null {
    try {
      // Not persistent: a watch never keeps a process alive; the lease's end closes it.
      const watcher = watch(dir, { persistent: false }, () => {
        w.changed = true;
      });
      watcher.on("error", () => {
        watcher.close();
        if (w.watcher === watcher) w.watcher = null;
        w.changed = true;
      });
      return watcher;
    } catch {
      // Gone since it was seen, or not watchable here (no inotify, its limits reached): looked at every lookMs.
      return null;
    }
  }

  /** This store left a message for the session: its run reads it at the next step. */
  posted(id: string): void {
    const w = this.sessions.get(id);
    if (w !== undefined) w.changed = true;
  }

  /** The store's lease on the session ended (or the store closes): its watch goes. */
  end(id: string): void {
    const w = this.sessions.get(id);
    if (w === undefined) return;
    this.sessions.delete(id);
    w.watcher?.close();
  }

  endAll(): void {
    for (const id of [...this.sessions.keys()]) this.end(id);
  }
}
