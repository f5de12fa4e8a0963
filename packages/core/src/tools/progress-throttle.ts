import type { ToolProgress } from "./tool.js";

/** Progress reports of one tool call, sent at most once per interval; the latest always goes out. */
export interface ProgressThrottle {
  report(update: ToolProgress): void;
  /** Sends what is pending now (the call is ending), and stops the timer. */
  flush(): void;
}

/**
 * A tool that reports on every chunk it reads (bash on every write of its command) would flood
 * the run stream: the first report goes out at once, later ones at most every `intervalMs`, each
 * carrying the latest state, so nothing is shown late by more than the interval.
 */
export function throttleProgress(send: (update: ToolProgress) => void, intervalMs = 200): ProgressThrottle {
  let lastSent = Number.NEGATIVE_INFINITY;
  let pending: ToolProgress | undefined;
  let timer: NodeJS.Timeout | undefined;
  const sendPending = () => {
    timer = undefined;
    if (!pending) return;
    const update = pending;
    pending = undefined;
    lastSent = performance.now();
    send(update);
  };
  return {
    report(update) {
      pending = update;
      const wait = lastSent + intervalMs - performance.now();
      if (wait <= 0) {
        if (timer) clearTimeout(timer);
        sendPending();
      } else {
        timer ??= setTimeout(sendPending, wait);
      }
    },
    flush() {
      if (timer) clearTimeout(timer);
      sendPending();
    },
  };
}
