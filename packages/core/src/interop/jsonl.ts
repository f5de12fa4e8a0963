/** One parsed line of a JSONL file, with its 1-based line number for messages. */
export interface JsonLine {
  line: number;
  value: unknown;
}

/**
 * Splits JSONL text into parsed lines. Blank lines are ignored; a line that is not JSON is
 * reported through `bad` rather than thrown, so one torn line (a session file being written
 * while it was copied) costs that line, not the session. A missing final newline is fine.
 */
export function parseJsonLines(text: string): { lines: JsonLine[]; bad: number[] } {
  const lines: JsonLine[] = [];
  const bad: number[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const raw = body.split("\n");
  for (const [i, l] of raw.entries()) {
    const t = l.trim();
    if (t === "") continue;
    try {
      lines.push({ line: i + 1, value: JSON.parse(t) });
    } catch {
      bad.push(i + 1);
    }
  }
  return { lines, bad };
}
