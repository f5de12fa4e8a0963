/** What `interruptHook` needs of the process: SIGINT listeners and a way out. */
export interface SignalSource {
  on(event: "SIGINT", listener: () => void): unknown;
  off(event: "SIGINT", listener: () => void): unknown;
}

/**
 * `Io.onInterrupt` over a process: while a handler is registered, the first Ctrl-C goes to it (a run
 * aborts and saves what it did) and a second one exits at once with 130, for a user who will not
 * wait. With no handler registered, Ctrl-C keeps its default meaning.
 */
export function interruptHook(source: SignalSource, exit: (code: number) => void): (handler: () => void) => () => void {
  return (handler) => {
    let count = 0;
    const listener = () => {
      count++;
      if (count > 1) exit(130);
      else handler();
    };
    source.on("SIGINT", listener);
    return () => void source.off("SIGINT", listener);
  };
}
