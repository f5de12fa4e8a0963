import type { RunEvent } from "@arbor/core";
import { hintFor } from "../errors.js";
import { outcomeLine, type RunOutcome } from "../render/live.js";
import { formatDuration } from "../render/run-format.js";
import type { Style } from "../render/style.js";
import { firstLine, oneLine, truncate } from "../render/text.js";

/** Why a turn stopped before the agent finished, in the chat's words. */
const STOP_REASONS: Readonly<Record<string, string>> = {
  max_turns: "stopped at the turn limit; send another prompt to go on",
  permission_rejected: "stopped because a permission was rejected",
  doom_loop: "stopped because the same tool call kept repeating",
  plan_rejected: "stopped because the plan was not approved",
  budget: "stopped because its budget is spent",
};

/** A finished tool call's line: `✓ read .env 12 ms`, `✗ edit a.ts 3 ms — why`. */
export function toolEndLine(
  style: Style,
  event: Extract<RunEvent, { type: "tool_end" }>,
  subject: string,
  columns: number,
): string {
  const duration = event.duration_ms === undefined ? "" : ` ${style.dim(formatDuration(event.duration_ms))}`;
  const reason = event.is_error ? ` ${style.dim(`— ${truncate(firstLine(event.output), 100)}`)}` : "";
  const mark = event.is_error ? style.red("✗") : style.green("✓");
  const shown = subject ? ` ${truncate(subject, Math.max(10, columns - 30))}` : "";
  return `${mark} ${event.tool}${shown}${duration}${reason}`;
}

/** How a turn ended: its error with what to do, `✓ done · steps · time · tokens · cost`, why it stopped short. */
export function endLines(style: Style, outcome: RunOutcome, elapsedMs: number, storeLabel: string): string[] {
  const lines: string[] = [];
  if (outcome.error) {
    const hint = hintFor(outcome.error.code, storeLabel);
    lines.push(style.red(`error: ${oneLine(outcome.error.message)}${hint ? ` ${hint}` : ""}`));
  }
  lines.push(outcomeLine(style, outcome, elapsedMs, "stopped"));
  const stop = outcome.stopMessage ?? (outcome.stopReason === undefined ? undefined : STOP_REASONS[outcome.stopReason]);
  if (stop !== undefined) lines.push(style.yellow(stop));
  return lines;
}
