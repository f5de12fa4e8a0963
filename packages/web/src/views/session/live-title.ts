import type { Snapshot } from "@arbor/core";

/** Titles longer than this are cut: the header shows one line. */
const MAX = 120;

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
}

/**
 * The session's name in its header. A session is titled when its first run ends; until then (a
 * first run still going) it goes by its first message, as the title falls back to when no title
 * model is set, rather than by its id. The id stays the last resort (a session with no message).
 */
export function liveTitle(sessionId: string, snapshot: Snapshot | undefined, prompt: string | undefined): string {
  const meta = snapshot?.session;
  if (meta?.title) return meta.title;
  if (meta?.task) return meta.task;
  for (const entry of snapshot?.entries ?? []) {
    if (entry.type !== "message" || entry.message.role !== "user") continue;
    const content = entry.message.content;
    const text = typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join("");
    const line = firstLine(text);
    if (line) return line;
    break;
  }
  return (prompt && firstLine(prompt)) || sessionId;
}
