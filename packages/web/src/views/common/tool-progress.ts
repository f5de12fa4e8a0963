/**
 * What a tool call's progress reports mean to a reader. A running tool sends `tool_progress` events
 * (bash its output so far, a long read or fetch its byte count, an MCP server its progress, explore
 * and delegate their branches); the last metadata it reported is kept in the stored result. The
 * keys read here are the ones the built-in tools and the MCP bridge send; any other is left alone.
 */

export interface ToolProgressView {
  title?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${(n / (1024 * 1024 * 1024)).toFixed(2)} GB`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The last lines of a command's output so far. The report carries only the end of the output, so
 * when it holds fewer line breaks than the command wrote, its first line is cut and is dropped.
 */
export function outputTail(metadata: Record<string, unknown> | undefined): string | undefined {
  const output = metadata?.output;
  if (typeof output !== "string") return undefined;
  const written = num(metadata?.lines);
  const breaks = output.split("\n").length - 1;
  const whole = written === undefined || breaks >= written;
  const text = whole ? output : output.slice(output.indexOf("\n") + 1);
  return text.replace(/\n$/, "");
}

/** How far along the call is, 0 to 1, when the tool said how much there is to do. */
export function progressFraction(metadata: Record<string, unknown> | undefined): number | undefined {
  const total = num(metadata?.totalBytes) ?? num(metadata?.total);
  const done = num(metadata?.readBytes) ?? num(metadata?.receivedBytes) ?? num(metadata?.progress);
  if (total === undefined || done === undefined || total <= 0) return undefined;
  return Math.min(1, Math.max(0, done / total));
}

interface Branch {
  status?: unknown;
}

/** The numbers of a report in words (`1.2 MB of 4.0 MB`, `3/10`, `2/3 branches done`), or undefined. */
export function progressSummary(metadata: Record<string, unknown> | undefined, running: boolean): string | undefined {
  if (!metadata) return undefined;
  const parts: string[] = [];
  const total = num(metadata.totalBytes);
  const read = num(metadata.readBytes);
  const received = num(metadata.receivedBytes);
  if (read !== undefined) {
    parts.push(
      running && total !== undefined ? `${formatBytes(read)} of ${formatBytes(total)} read` : `${formatBytes(read)} read`,
    );
  } else if (received !== undefined) {
    parts.push(
      running && total !== undefined
        ? `${formatBytes(received)} of ${formatBytes(total)} received`
        : `${formatBytes(received)} received`,
    );
  }
  const progress = num(metadata.progress);
  if (progress !== undefined) {
    const of = num(metadata.total);
    parts.push(of !== undefined ? `${progress}/${of}` : String(progress));
  }
  if (Array.isArray(metadata.branches)) {
    const branches = metadata.branches as Branch[];
    const done = branches.filter((b) => b.status === "done").length;
    const failed = branches.filter((b) => b.status === "failed").length;
    parts.push(`${done}/${plural(branches.length, "branch", "branches")} done${failed > 0 ? `, ${failed} failed` : ""}`);
  }
  // A command's line count (while running and in its result), with how it ended when that is news.
  const lines = num(metadata.lines);
  if (lines !== undefined && (running || lines > 0)) {
    parts.push(running ? `${plural(lines, "line", "lines")} so far` : `${plural(lines, "line", "lines")} of output`);
  }
  if (metadata.timedOut === true) parts.push("timed out");
  else if (typeof metadata.signal === "string") parts.push(`killed by ${metadata.signal}`);
  else {
    const exit = num(metadata.exitCode);
    if (exit !== undefined && exit !== 0) parts.push(`exit ${exit}`);
  }
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/**
 * What a finished call reported: its stored result's metadata, or, in a live run before the result
 * is read back, its last progress report, with bash's exit code taken from the status line that
 * ends its output (the result's metadata holds it, the reports do not).
 */
export function endedMetadata(
  tool: string,
  stored: Record<string, unknown> | undefined,
  reported: Record<string, unknown> | undefined,
  output: string | undefined,
): Record<string, unknown> | undefined {
  if (stored !== undefined) return stored;
  if (tool !== "bash" || output === undefined) return reported;
  const code = /\[exit code: (-?\d+)\]\s*$/.exec(output)?.[1];
  return code === undefined ? reported : { ...reported, exitCode: Number(code) };
}

/** The string values of a call's JSON arguments: a title that repeats one says nothing new. */
function argumentStrings(input: string): string[] {
  try {
    const value: unknown = JSON.parse(input);
    if (typeof value !== "object" || value === null) return [];
    return Object.values(value).filter((v): v is string => typeof v === "string" && v !== "");
  } catch {
    return [];
  }
}

/** The report's title, unless it only repeats the call's arguments (bash's command, read's path, fetch's URL). */
export function progressTitle(title: string | undefined, input: string): string | undefined {
  if (title === undefined || title.trim() === "") return undefined;
  const repeats = argumentStrings(input).some((arg) => title === arg || title.startsWith(arg) || arg.startsWith(title));
  return repeats ? undefined : title;
}
