/**
 * A single-consumer queue between the loop (which must never wait for a slow reader) and the
 * async iterator a caller holds. Pushing is O(1); the buffer is drained by index and compacted
 * only when the reader has caught up, so a burst of ten thousand deltas costs no copying.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  private buffer: T[] = [];
  private head = 0;
  private closed = false;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private iterated = false;
  /** Takes a waiting read's resolver: one function for the channel, not a closure per read. */
  private readonly wait = (resolve: (result: IteratorResult<T>) => void): void => {
    this.waiter = resolve;
  };

  push(value: T): void {
    if (this.closed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter({ value, done: false });
      return;
    }
    this.buffer.push(value);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.head < this.buffer.length) {
      const value = this.buffer[this.head++] as T;
      if (this.head === this.buffer.length) {
        this.buffer = [];
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise(this.wait);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterated) throw new Error("A run's event stream can be iterated once; use onEvent listeners for more readers.");
    this.iterated = true;
    return {
      next: () => this.next(),
      return: async () => {
        // The reader left: stop buffering for it. The run itself goes on (a disconnect never aborts).
        this.closed = true;
        this.buffer = [];
        this.head = 0;
        return { value: undefined, done: true };
      },
    };
  }
}
