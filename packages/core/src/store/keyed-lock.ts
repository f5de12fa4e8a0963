/**
 * Serializes async work per key: writes to one session run one after another while writes to
 * different sessions proceed independently. Owned by a store instance, never module-wide.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key);
    const next = prev ? prev.then(work, work) : work();
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** True while work for `key` is queued or running. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }

  /** Resolves when the work queued for `key` (and any queued meanwhile) has finished. */
  async settled(key: string): Promise<void> {
    for (let tail = this.tails.get(key); tail !== undefined; tail = this.tails.get(key)) await tail;
  }

  /** Resolves when every queued piece of work has finished. */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
