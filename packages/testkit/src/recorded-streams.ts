import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ProviderWire, wireShape } from "./provider-wire.js";

/** One answer of the recorded-stream server: a recorded stream, or an HTTP error as the API sends it. */
export type RecordedReply =
  | { kind: "stream"; events: string[] }
  | { kind: "error"; status: number; body: unknown; headers?: Record<string, string> };

const FIXTURES = fileURLToPath(new URL("../fixtures/provider-streams/", import.meta.url));

/** The JSON event lines of a recording shipped with the testkit, e.g. `anthropic/anthropic-text.chunks.txt`. */
export function recordedEvents(name: string): string[] {
  return readFileSync(`${FIXTURES}${name}`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** One recording as one reply. */
export function recordedStream(name: string): RecordedReply {
  return { kind: "stream", events: recordedEvents(name) };
}

/**
 * A recording that holds several responses one after another (one tool loop recorded whole), cut
 * where each response opens, so the server answers one per request.
 */
export function recordedResponses(wire: ProviderWire, name: string): RecordedReply[] {
  const shape = wireShape(wire);
  const replies: RecordedReply[] = [];
  for (const line of recordedEvents(name)) {
    const opens = shape.opensResponse(JSON.parse(line) as Record<string, unknown>);
    const last = replies.at(-1);
    if (opens || last === undefined || last.kind !== "stream") replies.push({ kind: "stream", events: [line] });
    else last.events.push(line);
  }
  return replies;
}
