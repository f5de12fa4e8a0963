import type { ServerResponse } from "node:http";

/**
 * Server-sent events as OpenAI sends them: `data: <json>` lines separated by a blank line, and `data: [DONE]`
 * last. Writes are corked and flushed before every wait, so a zero-latency step leaves in few TCP segments
 * instead of one per delta, while a delayed or hanging step still shows what came before the wait.
 */
export class SseWriter {
  #corked = false;

  constructor(private readonly res: ServerResponse) {}

  /** Sends the status line and headers; `extraHeaders` are e.g. a request id. */
  open(extraHeaders: Record<string, string> = {}): void {
    this.res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...extraHeaders,
    });
    this.res.flushHeaders();
  }

  send(payload: unknown): void {
    this.raw(`data: ${JSON.stringify(payload)}\n\n`);
  }

  /** Writes text verbatim: how the malformed step sends broken events. */
  raw(text: string): void {
    if (!this.#corked) {
      this.res.cork();
      this.#corked = true;
    }
    this.res.write(text);
  }

  /** Pushes what is buffered to the client. Call before waiting. */
  flush(): void {
    if (this.#corked) {
      this.#corked = false;
      this.res.uncork();
    }
  }

  done(): void {
    this.raw("data: [DONE]\n\n");
    this.end();
  }

  end(): void {
    this.flush();
    this.res.end();
  }
}
