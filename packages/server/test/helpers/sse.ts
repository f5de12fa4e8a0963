import type { RunEvent } from "@arbor/core";
import { expect } from "vitest";

/** One SSE message as sent: its `id:` line and its parsed `data:`. */
export interface SseMessage {
  id: string | undefined;
  event: RunEvent;
  /** The message's lines exactly as they came, for format checks. */
  raw: string;
}

/**
 * Reads an SSE response with plain fetch, message by message. `onMessage` returning false stops
 * reading and cancels the body (the client disconnects); otherwise reading goes on to the end.
 */
export async function readSse(res: Response, onMessage?: (m: SseMessage) => boolean | undefined): Promise<SseMessage[]> {
  if (!res.body) throw new Error(`No body (status ${res.status})`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const messages: SseMessage[] = [];
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let data = "";
      for (const line of raw.split("\n")) {
        if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      const message: SseMessage = { id, event: JSON.parse(data) as RunEvent, raw };
      messages.push(message);
      if (onMessage?.(message) === false) {
        await reader.cancel();
        return messages;
      }
    }
  }
  return messages;
}

/** The text the run's `token` events streamed, joined. */
export const tokenText = (messages: readonly SseMessage[]) =>
  messages.flatMap((m) => (m.event.type === "token" ? [m.event.content] : [])).join("");

export const typesOf = (messages: readonly SseMessage[]) => messages.map((m) => m.event.type);

/**
 * Sends a chat (to `sessionId`, else a new session) through POST /api/chat, reads its stream to the
 * end, which must be `done`, and gives the session's id.
 */
export async function chatToDone(
  server: { api(path: string, init?: { json?: unknown }): Promise<Response> },
  message: string,
  sessionId?: string,
): Promise<string> {
  const events = await readSse(
    await server.api("/api/chat", { json: { message, ...(sessionId ? { session_id: sessionId } : {}) } }),
  );
  expect(events.at(-1)?.event.type).toBe("done");
  return events[0]?.event.session_id as string;
}
