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
  if (!mayHaveLooped(steps, maxPeriod, minText)) return undefined;
  // Only the newest calls and texts can complete a loop, so older steps are never keyed: this runs
  // after every step, and keying a call serializes its whole input. Gathered newest first, and
  // compared where they lie (no copies of the window): most steps end at the first comparison.
  const maxCalls = maxPeriod * threshold;
  const calls: Array<Extract<LoopStep, { kind: "tool" }>> = [];
  const keys: string[] = [];
  const texts: string[] = [];
  for (let i = steps.length - 1; i >= 0 && (calls.length < maxCalls || texts.length < threshold); i--) {
    const step = steps[i]!;
    if (step.kind === "tool") {
      if (calls.length < maxCalls) {
        calls.push(step);
        keys.push(step.key ?? callKey(step.tool, step.input));
      }
    } else if (texts.length < threshold) {
      const text = step.text.trim();
      if (text.length >= Math.max(1, minText)) texts.push(text);
    }
  }

  for (let period = 1; period <= maxPeriod; period++) {
    const span = period * threshold;
    if (calls.length < span) break;
    // The newest `span` calls are `period` calls repeated when each equals the one `period` before it.
    let periodic = true;
    for (let j = 0; j + period < span && periodic; j++) periodic = keys[j] === keys[j + period];
    if (!periodic) continue;
    // A unit that is itself one call repeated (A A) is the period-1 repeat, already checked.
    if (period > 1 && keys.slice(span - period, span).every((k) => k === keys[span - 1])) continue;
    // The unit in the order it was called: the oldest `period` calls of the span.
    const unit: LoopCall[] = [];
    for (let j = span - 1; j >= span - period; j--) unit.push({ tool: calls[j]!.tool, input: calls[j]!.input });
    if (period === 1) return { kind: "repeat", call: unit[0]!, count: threshold };
    return { kind: "cycle", period, unit, repeats: threshold };
  }

  if (texts.length >= threshold && texts.slice(0, threshold).every((t) => t === texts[0])) {
    return { kind: "text", text: texts[0]!, count: threshold };
  }
  return undefined;
}

/**
 * False when no loop can have just completed, found without a list: every loop repeats the newest
 * call `period` calls back (period ≤ `maxPeriod`) or the newest long text one text back. This runs
 * after every step, and nearly every step is new work.
 */
function mayHaveLooped(steps: readonly LoopStep[], maxPeriod: number, minText: number): boolean {
  let newestCall: string | undefined;
  let calls = 0;
  let newestText: string | undefined;
  let texts = 0;
  for (let i = steps.length - 1; i >= 0 && (calls <= maxPeriod || texts < 2); i--) {
    const step = steps[i]!;
    if (step.kind === "tool") {
      if (calls > maxPeriod) continue;
      const key = step.key ?? callKey(step.tool, step.input);
      if (calls === 0) newestCall = key;
      else if (key === newestCall) return true;
      calls++;
    } else if (texts < 2) {
      const text = step.text.trim();
      if (text.length < Math.max(1, minText)) continue;
      if (texts === 0) newestText = text;
      else if (text === newestText) return true;
      texts++;
    }
  }
  return false;
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
  if (Array.isArray(value)) {
    let out = "[";
    // A hole is written as nothing, as `map` and `join` would.
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? "" : ","}${i in value ? stableJson(value[i]) : ""}`;
    return `${out}]`;
  }
  // Keyed once per call the model makes: no array of entries, and no sort when the keys come in
  // order already (sorting copied them every time). Strings sort by code unit either way.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (!sorted) keys.sort();
  let out = "{";
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${stableJson(v)}`;
  }
  return `${out}}`;
}
