import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";

/** How many parts a replay produces ahead of its reader. */
const AHEAD = 64;

export interface ReplayOptions {
  /** Aborting errors the stream with the signal's reason, as an aborted fetch does. */
  signal?: AbortSignal | undefined;
  /** Waited before the first part (a cassette replaying at the recorded pace). */
  latencyMs?: number | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/**
 * Recorded parts as a provider stream. Parts are enqueued on demand, at most AHEAD in advance:
 * Node's stream queue dequeues with Array#shift, so enqueuing a long recording at once would cost
 * time quadratic in its length.
 */
export function replayStream(
  parts: readonly LanguageModelV4StreamPart[],
  options: ReplayOptions = {},
): ReadableStream<LanguageModelV4StreamPart> {
  const { signal, latencyMs, sleep } = options;
  let next = 0;
  let waited = latencyMs === undefined || latencyMs <= 0 || sleep === undefined;
  return new ReadableStream<LanguageModelV4StreamPart>(
    {
      async pull(controller) {
        if (!waited) {
          waited = true;
          await sleep?.(latencyMs ?? 0, signal);
        }
        if (signal?.aborted) throw signal.reason;
        while ((controller.desiredSize ?? 0) > 0 && next < parts.length)
          controller.enqueue(parts[next++] as LanguageModelV4StreamPart);
        if (next >= parts.length) controller.close();
      },
    },
    { highWaterMark: AHEAD },
  );
}

export interface StreamTap {
  part(part: LanguageModelV4StreamPart): void;
  /**
   * Called once: `complete` when the source ended after a `finish` part with no `error` part, false
   * when it failed or the reader cancelled. The reader sees the end only after this settles, so
   * whatever it writes is in place when the call returns.
   */
  end(complete: boolean): void | Promise<void>;
}

/**
 * The source stream, passed through part by part while `tap` sees each part. One pending read at a
 * time (no internal queue), so a reader that stops early (an abort, an error part) cancels the
 * provider's body as it would without the tap.
 */
export function tapStream(
  source: ReadableStream<LanguageModelV4StreamPart>,
  tap: StreamTap,
): ReadableStream<LanguageModelV4StreamPart> {
  const reader = source.getReader();
  let finished = false;
  let failed = false;
  let ended = false;
  const end = async (complete: boolean) => {
    if (ended) return;
    ended = true;
    try {
      await tap.end(complete);
    } catch {
      // The tap is a bystander (a cache write, a recorder): its failure must not fail the call.
    }
  };
  return new ReadableStream<LanguageModelV4StreamPart>(
    {
      async pull(controller) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (err) {
          await end(false);
          controller.error(err);
          return;
        }
        if (result.done) {
          await end(finished && !failed);
          controller.close();
          return;
        }
        const part = result.value;
        if (part.type === "finish") finished = true;
        else if (part.type === "error") failed = true;
        tap.part(part);
        controller.enqueue(part);
      },
      async cancel(reason) {
        await end(false);
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
