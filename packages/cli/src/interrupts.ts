/** The signals that ask a run to stop: Ctrl-C, a service manager's stop, a closed terminal. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** What `interruptHook` needs of the process: signal listeners and a way out. */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown;
  off(event: StopSignal, listener: () => void): unknown;
}

/**
 * `Io.onInterrupt` over a process: while a handler is registered, the first Ctrl-C (or SIGTERM, or
 * SIGHUP) goes to it (a run aborts, ends its tools' processes and saves what it did) and a second one
 * exits at once with 130, for a user who will not wait. With no handler registered, each signal keeps
 * its default meaning.
 */
export function interruptHook(source: SignalSource, exit: (code: number) => void): (handler: () => void) => () => void {
  return (handler) => {
    let count = 0;
    const listener = () => {
      count++;
      if (count > 1) exit(130);
      else handler();
    };
    for (const signal of STOP_SIGNALS) source.on(signal, listener);
    return () => {
      for (const signal of STOP_SIGNALS) source.off(signal, listener);
    };
  };
}
