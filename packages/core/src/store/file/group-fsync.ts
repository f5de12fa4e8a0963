import { fsync } from "node:fs";

/**
 * Group commit for one file: callers that arrive while an fsync runs wait for the next one, which
 * then covers all of them, so N concurrent appends cost about two fsyncs instead of N.
 */
export class GroupFsync {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly fd: number) {}

  sync(): Promise<void> {
    if (!this.running) return this.start();
    if (!this.next) {
      this.next = this.running.then(
        () => this.handOver(),
        () => this.handOver(),
      );
    }
    return this.next;
  }

  private handOver(): Promise<void> {
    this.next = null;
    return this.start();
  }

  private start(): Promise<void> {
    const p = new Promise<void>((resolve, reject) => fsync(this.fd, (err) => (err ? reject(err) : resolve())));
    this.running = p;
    const clear = () => {
      if (this.running === p) this.running = null;
    };
    p.then(clear, clear);
    return p;
  }
}
