import type { PermissionRequest } from "./tool.js";

/**
 * The doom-loop guard, pure. OpenCode only sees the same call three times in a row
 * within one message; models also loop across messages, alternate between two or three calls
 * (read A, edit B, read A, edit B, …), or repeat the same text. The loop feeds the recent steps of
 * the run, in order, after each step; a detection becomes a `doom_loop` permission ask.
 */
/** A tool step's `key` is `callKey(tool, input)` when the caller keyed the call as it recorded it (once per call). */
export type LoopStep = { kind: "tool"; tool: string; input: unknown; key?: string } | { kind: "text"; text: string };

/** What makes two calls the same call: the tool and its input, key order ignored. */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${stableJson(input)}`;
}

export interface LoopCall {
  tool: string;
  input: unknown;
}

export type DoomLoop =
  /** The same tool with the same input, `count` times in a row. */
  | { kind: "repeat"; call: LoopCall; count: number }
  /** The last `period × repeats` calls are one unit of `period` calls, repeated. */
  | { kind: "cycle"; period: number; unit: LoopCall[]; repeats: number }
  /** The same assistant text, `count` times in a row. */
  | { kind: "text"; text: string; count: number };

export interface DoomLoopOptions {
  /** How many repetitions count as a loop. Default 3: twice can be a retry, three times is a loop. */
  threshold?: number;
  /** Longest cycle looked for. Default 3. */
  maxPeriod?: number;
  /**
   * Texts shorter than this (trimmed) are not compared: connective phrases such as "Let me check."
   * legitimately repeat before different calls. Default 40 characters.
   */
  minTextChars?: number;
}

/**
 * Looks at the end of `steps` for a loop that has just completed. Calls are compared by tool and
 * input (key order ignored), across any text in between; texts by their trimmed content, across
 * any calls in between. The simplest explanation is reported: a repeat before a cycle, a shorter
 * cycle before a longer one.
 */
export function detectDoomLoop(steps: readonly LoopStep[], options: DoomLoopOptions = {}): DoomLoop | undefined {
  const threshold = Math.max(2, options.threshold ?? 3);
  const maxPeriod = Math.max(1, options.maxPeriod ?? 3);
  const minText = options.minTextChars ?? 40;
  // Only the newest calls and texts can complete a loop, so older steps are never keyed: this runs
  // after every step, and keying a call serializes its whole input.
  const maxCalls = maxPeriod * threshold;
  const calls: Array<LoopCall & { key: string }> = [];
  const texts: string[] = [];
  for (let i = steps.length - 1; i >= 0 && (calls.length < maxCalls || texts.length < threshold); i--) {
    const step = steps[i]!;
    if (step.kind === "tool") {
      if (calls.length < maxCalls)
        calls.push({ tool: step.tool, input: step.input, key: step.key ?? callKey(step.tool, step.input) });
    } else if (texts.length < threshold && step.text.trim().length >= Math.max(1, minText)) texts.push(step.text.trim());
  }
  calls.reverse();
  texts.reverse();

  for (let period = 1; period <= maxPeriod; period++) {
    const span = period * threshold;
    if (calls.length < span) break;
    const window = calls.slice(-span);
    let periodic = true;
    for (let i = period; i < span && periodic; i++) periodic = window[i]!.key === window[i - period]!.key;
    if (!periodic) continue;
    const unit = window.slice(0, period);
    // A unit that is itself one call repeated (A A) is the period-1 repeat, already checked.
    if (period > 1 && unit.every((c) => c.key === unit[0]!.key)) continue;
    const strip = ({ tool, input }: LoopCall) => ({ tool, input });
    if (period === 1) return { kind: "repeat", call: strip(unit[0]!), count: threshold };
    return { kind: "cycle", period, unit: unit.map(strip), repeats: threshold };
  }

  if (texts.length >= threshold) {
    const last = texts.slice(-threshold);
    if (last.every((t) => t === last[0])) return { kind: "text", text: last[0]!, count: threshold };
  }
  return undefined;
}

/** The ask a detection turns into; patterns are the tools involved, so rules can target them. */
export function doomLoopRequest(loop: DoomLoop): PermissionRequest {
  const tools =
    loop.kind === "repeat" ? [loop.call.tool] : loop.kind === "cycle" ? [...new Set(loop.unit.map((c) => c.tool))] : ["*"];
  return { permission: "doom_loop", patterns: tools, metadata: { loop } };
}

/** One sentence for events and for the model, saying what repeated. */
export function describeDoomLoop(loop: DoomLoop): string {
  switch (loop.kind) {
    case "repeat":
      return `The same call (${loop.call.tool} with the same input) was made ${loop.count} times in a row.`;
    case "cycle":
      return `The same ${loop.period} calls (${loop.unit.map((c) => c.tool).join(" → ")}) repeated ${loop.repeats} times.`;
    case "text":
      return `The same reply was written ${loop.count} times in a row.`;
  }
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` compare equal. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
}
