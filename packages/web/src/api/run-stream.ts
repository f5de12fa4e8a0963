import type { RunEvent } from "@arbor/core";
import { apiResponse } from "./client.js";
import { SseParser } from "./sse.js";
import { parseRunEvent } from "./wire.js";

export interface ChatBody {
  message: string;
  session_id?: string;
  from_entry_id?: string;
  agent?: string;
  model?: string;
  debug?: "basic" | "standard" | "full";
  /** MCP resources the server reads into the message (the composer's `@server:uri` mentions). */
  attachments?: { mcp_resource: { server: string; uri: string } }[];
  /** An MCP server's prompt the server fills in to open the message (the composer's MCP picker). */
  mcp_prompt?: { server: string; name: string; arguments?: Record<string, string> };
}

export interface StreamEvent {
  /** The SSE `id:`, strictly increasing across the server's runs. */
  id: number | undefined;
  event: RunEvent;
}

/**
 * Reads a run stream response, handing each batch of events (one network chunk) to `onEvents`,
 * so a burst of tokens costs one render, not one per token. Resolves when the stream ends.
 */
export async function readRunStream(res: Response, onEvents: (events: StreamEvent[]) => void): Promise<void> {
  if (res.status === 204 || !res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const batch: StreamEvent[] = [];
    for (const message of parser.push(value)) {
      const id = message.id === undefined ? undefined : Number(message.id);
      batch.push({ id: Number.isFinite(id) ? id : undefined, event: parseRunEvent(JSON.parse(message.data)) });
    }
    if (batch.length > 0) onEvents(batch);
  }
}

/** `POST /api/chat`: starts a run and returns its stream. */
export function startChat(body: ChatBody, signal: AbortSignal): Promise<Response> {
  return apiResponse("/api/chat", { json: body, signal });
}

/** `PATCH /api/traces/:id/replay`'s body: the past goal call to redo with new arguments. */
export interface ReplayBody {
  from_message_id: string;
  modified_tool_call: { tool_call_id: string; new_arguments: Record<string, unknown> };
}

/** `PATCH /api/traces/:id/replay`: a new branch before the message, the goal call redone, and the run's stream. */
export function startReplay(sessionId: string, body: ReplayBody, signal: AbortSignal): Promise<Response> {
  return apiResponse(`/api/traces/${encodeURIComponent(sessionId)}/replay`, { method: "PATCH", json: body, signal });
}

/** `POST /api/chat` to a session whose run is streaming: the run reads the message before its next model call. */
export async function steerRun(sessionId: string, message: string): Promise<void> {
  const res = await apiResponse("/api/chat", { json: { message, session_id: sessionId, busy: "steer" } });
  // A 200 means the run ended in between and this message started a new one: its stream is not followed here.
  await res.body?.cancel();
}

/**
 * `GET /api/sessions/:id/stream`: the session's latest run, from its first event or after
 * `lastEventId`. 204 when there is nothing to send.
 */
export function resumeStream(sessionId: string, lastEventId: number | undefined, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = lastEventId === undefined ? {} : { "Last-Event-ID": String(lastEventId) };
  return apiResponse(`/api/sessions/${encodeURIComponent(sessionId)}/stream`, { headers, signal });
}
