/**
 * Abort handling shared by the scripted model, the fake server and the clocks. Consumers (the AI SDK, the runtime)
 * recognise an abort by the error's name, as they do for fetch, so that is what every abort rejects with.
 */

/** The error an aborted call rejects with: the signal's reason when it already is an AbortError, as fetch does. */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  const error = new Error("The operation was aborted", { cause: reason });
  error.name = "AbortError";
  return error;
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/**
 * Resolves never; rejects with an AbortError when the signal fires. Without a signal it pends forever, which is
 * what a hang means — the listener is removed on abort so a long-lived signal does not collect them.
 */
export function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (!signal) return;
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    signal.addEventListener("abort", () => reject(abortError(signal)), { once: true });
  });
}
