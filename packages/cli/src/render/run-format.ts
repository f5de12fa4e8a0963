import type { Entry, TokenUsage } from "@arbor/core";
import { oneLine, truncate } from "./text.js";

/** `12 ms`, `1.4 s`, `2 m 05 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, "0")} s`;
}

/**
 * `12,345`. Grouped by hand: the first `toLocaleString` of a process builds ICU's number formatter, ~18 ms
 * of CPU at the end of every `arbor run` (it prints the run's token counts), more than the rest of its
 * summary costs.
 */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** Dollars: four decimals below a dollar, where agent runs usually are. */
export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * A total cost where some messages may have had no price (their model is not in the catalog): never
 * `$0.0000` for work whose price is unknown.
 */
export function formatTotalCost(usd: number, unpriced: boolean): string {
  if (!unpriced) return formatCost(usd);
  return usd > 0 ? `${formatCost(usd)} + price unknown` : "price unknown";
}

/** Whether any model answer among `entries` used tokens yet carries no cost: its price was unknown. */
export function hasUnpricedAnswer(entries: Iterable<Entry>): boolean {
  for (const e of entries) {
    if (e.type !== "message" || e.message.role !== "assistant") continue;
    const t = e.message.tokens;
    if (t && t.input + t.output > 0 && e.message.cost === undefined) return true;
  }
  return false;
}

/** `5,230 in (4,100 cached) · 412 out (120 reasoning)`. */
export function formatUsage(usage: TokenUsage): string {
  const cached = usage.cacheRead > 0 ? ` (${formatCount(usage.cacheRead)} cached)` : "";
  const reasoning = usage.reasoning > 0 ? ` (${formatCount(usage.reasoning)} reasoning)` : "";
  return `${formatCount(usage.input)} in${cached} · ${formatCount(usage.output)} out${reasoning} tokens`;
}

/** Input fields that say best what a call is about, for tools whose input has no fixed shape here. */
const SUBJECT_KEYS = ["path", "command", "pattern", "url", "name", "query", "task", "description", "file"];

function parseInput(input: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a tool call acts on, in one short line: the path read, the command run, the pattern searched.
 * `input` is the call's arguments as JSON text (the `tool_start` event's `input`).
 */
export function toolSubject(tool: string, input: string, max = 80): string {
  const args = parseInput(input);
  if (args === undefined) return truncate(oneLine(input), max);
  let subject: string | undefined;
  if (tool === "list" && args.path === undefined) subject = ".";
  else if (tool === "todowrite" && Array.isArray(args.todos)) subject = `${args.todos.length} todos`;
  else if (tool === "goal") subject = goalSubject(args);
  else if ((tool === "grep" || tool === "glob") && typeof args.pattern === "string") {
    subject = typeof args.path === "string" ? `${args.pattern} in ${args.path}` : args.pattern;
  } else {
    const key = SUBJECT_KEYS.find((k) => typeof args[k] === "string");
    subject = key === undefined ? undefined : (args[key] as string);
  }
  return truncate(oneLine(subject ?? ""), max);
}

/** A goal call's arguments in the order they apply: `done · add "Read, Fix" · focus 2`. */
function goalSubject(args: Record<string, unknown>): string {
  const parts: string[] = [];
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  if (text("done") !== undefined) parts.push("done");
  if (text("abandon") !== undefined) parts.push("abandon");
  const add = text("add");
  if (add !== undefined)
    parts.push(`add "${add}"${text("under") ? ` under ${text("under")}` : text("after") ? ` after ${text("after")}` : ""}`);
  if (text("focus") !== undefined) parts.push(`focus ${text("focus")}`);
  return parts.join(" · ");
}

/** Streamed text made safe for a terminal: control characters (escape sequences too) go, newlines and tabs stay. */
export function streamSafe(text: string): string {
  return text.replace(/(?![\n\t])\p{Cc}/gu, "");
}
