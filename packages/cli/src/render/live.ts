import type { RunEvent, TokenUsage } from "@arbor/core";
import type { RetryNotice } from "@arbor/core/llm";
import { PERMISSION_UNANSWERED_OUTPUT } from "@arbor/core/session";
import type { Output } from "../io.js";
import { retryLine } from "./retry.js";
import { formatCost, formatDuration, formatUsage, streamSafe, toolSubject } from "./run-format.js";
import { PLAIN, type Style } from "./style.js";
import { firstLine, oneLine, plural, truncate } from "./text.js";

/** What the views need of a finished run; the runtime's `RunResult` has all of it. */
export interface RunOutcome {
  sessionId: string;
  status: "done" | "error" | "aborted";
  stopReason?: string | undefined;
  /** Why it stopped, when the runtime says it in words (a spent budget). */
  stopMessage?: string | undefined;
  steps: number;
  usage: TokenUsage;
  cost: number;
  /** `false` when a call's model has no known price: the summary says so instead of a partial sum. */
  costKnown?: false | undefined;
  error?: { code: string; message: string } | undefined;
  /** The final assistant text (the last step's). */
  text?: string | undefined;
}

export interface RunEnd {
  outcome: RunOutcome;
  elapsedMs: number;
  /** Where the session is and what to run next, as `[label, command]`; absent when the run wrote no session. */
  session?: { id: string; next: readonly (readonly [string, string])[] } | undefined;
}

/** A permission ask, as the views describe it. */
export interface Ask {
  permission: string;
  patterns: readonly string[];
  /** What an "always" answer approves, when it differs from `patterns` (a folder's `dir/*`). */
  always?: readonly string[] | undefined;
}

/** Who answered an ask: `--yes`, nobody (no terminal: denied), or the person at the prompt. */
export type AskAnswerer = "yes" | "nobody" | "user";

export type AskReply = "once" | "always" | "reject";

/** Renders one run as it happens. Both views write only through the given outputs, so tests capture them. */
export interface RunView {
  event(event: RunEvent): void;
  /** An ask was answered by the CLI itself (the run stream says only that it was asked). */
  answered(ask: Ask, reply: AskReply, by: AskAnswerer): void;
  /** Ends the line in progress, so a prompt on the terminal starts on a line of its own. */
  breakLine(): void;
  /** A model call failed and is about to be tried again: said on stderr as it happens. */
  retrying(notice: RetryNotice): void;
  end(end: RunEnd): void;
}

export interface ViewOutputs {
  stdout: Output;
  stderr: Output;
}

function askTarget(ask: Ask): string {
  return ask.patterns.length > 0 ? ask.patterns.join(", ") : "this request";
}

/** The stderr line for an ask nobody could answer (such a run denies asks and says so, rather than hang). */
export function deniedNoOneToAsk(ask: Ask): string {
  return `permission ${ask.permission} for ${askTarget(ask)} denied: no one to ask; rerun with --yes to allow`;
}

const STOP_REASONS: Readonly<Record<string, string>> = {
  max_turns: "stopped at the turn limit (--max-turns); continue the session to go on",
  permission_rejected: "stopped because a permission was rejected",
  doom_loop: "stopped because the same tool call kept repeating",
  plan_rejected: "stopped because the plan was not approved",
  budget: "stopped because its budget is spent",
};

/**
 * `✓ done · 3 steps · 2.1s · tokens · cost`: how a run ended, as the run view and the chat both print
 * it (one function, so the two never drift apart); `stopped` names an aborted run.
 */
export function outcomeLine(style: Style, outcome: RunOutcome, elapsedMs: number, stopped: "aborted" | "stopped"): string {
  const stats = [
    plural(outcome.steps, "step", "steps"),
    formatDuration(elapsedMs),
    formatUsage(outcome.usage),
    outcome.costKnown === false ? "price unknown" : formatCost(outcome.cost),
  ];
  const mark =
    outcome.status === "done"
      ? style.green("✓ done")
      : outcome.error?.code === "needs_answer"
        ? style.yellow("⏸ waiting for an answer")
        : outcome.status === "aborted"
          ? style.yellow(`■ ${stopped}`)
          : style.red("✗ failed");
  return `${mark} ${style.dim(`· ${stats.join(" · ")}`)}`;
}

function errorLine(outcome: RunOutcome): string {
  const message = outcome.error ? oneLine(outcome.error.message) : "the run failed";
  return `error: ${message || "the run failed"}\n`;
}

/**
 * The last line of a run that finished, for scripts: how it ended, what it used and cost, and the final
 * answer, so nobody has to add up `llm_end` events or join tokens.
 */
function doneLine(outcome: RunOutcome): Record<string, unknown> {
  return {
    type: "done",
    session_id: outcome.sessionId,
    status: outcome.status,
    ...(outcome.stopReason === undefined ? {} : { stop_reason: outcome.stopReason }),
    steps: outcome.steps,
    usage: outcome.usage,
    cost: outcome.cost,
    ...(outcome.costKnown === false ? { cost_known: false } : {}),
    text: outcome.text ?? "",
  };
}

/**
 * `--json`: every run event as one line, ending with `done` or `error` from the run's result (the
 * stream's own last event is held back: the result says more, and may say why the CLI stopped it).
 */
export function createJsonView(out: ViewOutputs): RunView {
  const line = (value: unknown) => out.stdout.write(`${JSON.stringify(value)}\n`);
  return {
    event(event) {
      if (event.type === "done" || event.type === "error") return;
      line(event);
    },
    answered(ask, _reply, by) {
      if (by === "nobody") out.stderr.write(`${deniedNoOneToAsk(ask)}\n`);
    },
    breakLine() {},
    retrying(notice) {
      out.stderr.write(`${retryLine(notice)}\n`);
    },
    end({ outcome }) {
      const session_id = outcome.sessionId;
      if (outcome.status === "done") line(doneLine(outcome));
      else if (outcome.status === "aborted")
        line({ type: "error", session_id, content: "The run was aborted.", code: "aborted" });
      else line({ type: "error", session_id, content: outcome.error?.message ?? "The run failed.", code: outcome.error?.code });
      if (outcome.status === "error") out.stderr.write(errorLine(outcome));
    },
  };
}

export interface TextViewOptions {
  style?: Style;
  /** Terminal width: tool lines are cut to fit. */
  columns?: number | undefined;
  /**
   * On a terminal a tool's line appears when it starts and is finished in place when it ends;
   * elsewhere (logs, pipes) it is written once, when the tool ends.
   */
  live?: boolean;
}

/** The exit status the bash tool appends to its output (`[exit code: 1]`), when it is not 0. */
function nonZeroExit(output: string): string | undefined {
  const code = /\[exit code: (-?\d+)\]\s*$/.exec(output)?.[1];
  return code === undefined || code === "0" ? undefined : code;
}

/** Lines for the branches of an explore/delegate call that ended since the last report (see `branch-progress` in core). */
function finishedBranches(event: Extract<RunEvent, { type: "tool_progress" }>, reported: Set<string>): string[] {
  const branches = event.metadata?.branches;
  if (!Array.isArray(branches)) return [];
  const lines: string[] = [];
  branches.forEach((b: { traceId?: unknown; task?: unknown; status?: unknown; steps?: unknown }, i) => {
    if (typeof b.traceId !== "string" || (b.status !== "done" && b.status !== "failed") || reported.has(b.traceId)) return;
    reported.add(b.traceId);
    const steps = typeof b.steps === "number" ? `, ${plural(b.steps, "step", "steps")}` : "";
    lines.push(
      `  ${event.tool} #${i + 1} ${b.status === "done" ? "done" : "failed"}: ${truncate(oneLine(String(b.task ?? "")), 60)}${steps}`,
    );
  });
  return lines;
}

interface ToolCall {
  tool: string;
  subject: string;
}

/**
 * The human live view: streamed text as it arrives, reasoning dimmed, one line per tool call with
 * its status and duration, asks, then a usage line and where the session is.
 */
export function createTextView(out: ViewOutputs, opts: TextViewOptions = {}): RunView {
  const style = opts.style ?? PLAIN;
  // A terminal that reports no width (0, as some ptys do) is taken as 100 columns.
  const width = Math.max(40, opts.columns || 100);
  const live = opts.live ?? false;
  const calls = new Map<string, ToolCall>();
  // Sub-agent branches already said to have ended, by trace id.
  const reported = new Set<string>();
  let atLineStart = true;
  let block: "text" | "reasoning" | undefined;
  // The call whose start line is the last thing written, unfinished, so its end can replace it.
  let openCall: string | undefined;
  let wroteAny = false;

  const write = (text: string) => {
    if (text === "") return;
    out.stdout.write(text);
    atLineStart = text.endsWith("\n");
    wroteAny = true;
  };
  const breakLine = () => {
    if (!atLineStart) write("\n");
    openCall = undefined;
  };
  const startBlock = (kind: "text" | "reasoning" | undefined) => {
    if (block !== kind || openCall !== undefined) breakLine();
    block = kind;
  };

  /** `mark tool subject tail`, the subject cut so the line fits; `tailWidth` is the tail's visible width (no escapes). */
  const toolLine = (mark: string, call: ToolCall, tail: string, tailWidth: number) => {
    // The mark is one column; the subject gets what the tool name and the tail leave.
    const room = width - 2 - call.tool.length - 1 - tailWidth - 1;
    const subject = call.subject === "" ? "" : ` ${truncate(call.subject, Math.max(10, room))}`;
    return `${mark} ${call.tool}${subject}${tail}`;
  };

  return {
    breakLine,
    retrying(notice) {
      // On a terminal stdout and stderr share the screen: finish the line in progress first.
      if (out.stdout.isTTY) breakLine();
      out.stderr.write(`${style.yellow(retryLine(notice))}\n`);
    },
    event(event) {
      switch (event.type) {
        case "token":
          startBlock("text");
          write(streamSafe(event.content));
          break;
        case "reasoning": {
          const text = streamSafe(event.content);
          if (text === "") break;
          // Marked in words too, so it stays apart from the answer where there is no dimming (logs, NO_COLOR).
          if (block !== "reasoning" || openCall !== undefined) {
            startBlock("reasoning");
            write(style.dim("thinking: "));
          }
          write(style.dim(text));
          break;
        }
        case "tool_start": {
          const call = { tool: event.tool, subject: toolSubject(event.tool, event.input, width) };
          calls.set(event.call_id, call);
          if (!live) break;
          startBlock(undefined);
          breakLine();
          write(style.dim(toolLine("…", call, "", 0)));
          openCall = event.call_id;
          break;
        }
        case "tool_progress": {
          const call = calls.get(event.call_id);
          if (!live) {
            // A log gets a line per sub-agent branch as it ends, not every step.
            const lines = finishedBranches(event, reported);
            if (lines.length > 0) {
              startBlock(undefined);
              breakLine();
            }
            for (const line of lines) write(style.dim(`${line}\n`));
            break;
          }
          // Shown only on the running call's own line; a report for a call whose line was left behind is dropped.
          // A command's latest output line says more than its title while it runs.
          const output = event.metadata?.output;
          const lastLine = typeof output === "string" ? output.trimEnd().split("\n").at(-1) : undefined;
          const shown = lastLine || event.title;
          if (openCall !== event.call_id || !call || shown === undefined) break;
          const note = truncate(oneLine(streamSafe(shown)), Math.max(40, Math.floor(width / 2)));
          out.stdout.write("\r\u001b[K");
          write(style.dim(toolLine("…", call, ` ${note}`, note.length + 1)));
          break;
        }
        case "tool_end": {
          const call = calls.get(event.call_id) ?? { tool: event.tool, subject: "" };
          calls.delete(event.call_id);
          const duration = event.duration_ms === undefined ? "" : formatDuration(event.duration_ms);
          // Stopped on its permission ask, the call did not fail: it waits for an answer.
          const waits = event.is_error && event.output === PERMISSION_UNANSWERED_OUTPUT;
          const reason = waits ? "waiting for permission" : event.is_error ? firstLine(event.output) : "";
          const exit = event.tool === "bash" && !event.is_error ? nonZeroExit(event.output) : undefined;
          const note = reason !== "" ? `— ${truncate(reason, 100)}` : exit !== undefined ? `exit ${exit}` : "";
          const tail = `${duration === "" ? "" : ` ${style.dim(duration)}`}${
            note === "" ? "" : ` ${reason !== "" ? style.dim(note) : style.yellow(note)}`
          }`;
          const tailWidth = (duration === "" ? 0 : duration.length + 1) + (note === "" ? 0 : note.length + 1);
          const mark = waits ? style.yellow("⏸") : event.is_error ? style.red("✗") : style.green("✓");
          const line = toolLine(mark, call, tail, tailWidth);
          if (live && openCall === event.call_id) {
            out.stdout.write("\r\u001b[K");
            openCall = undefined;
          } else {
            startBlock(undefined);
            breakLine();
          }
          write(`${line}\n`);
          // What a goal call changed, in its own words: the first line of its result.
          if (event.tool === "goal" && !event.is_error && firstLine(event.output) !== "") {
            write(style.dim(`  ${truncate(firstLine(event.output), width - 2)}\n`));
          }
          break;
        }
        case "error":
          // Said once, by end(), on stderr.
          break;
        case "plan_created":
          startBlock(undefined);
          breakLine();
          write(`${style.bold(`Plan: ${oneLine(event.plan.title)}`)}\n`);
          for (const step of event.plan.steps) write(`  ${step.id}. ${oneLine(step.title)} ${style.dim(`[${step.status}]`)}\n`);
          break;
        case "plan_updated":
          startBlock(undefined);
          breakLine();
          write(style.dim(`plan step ${event.step_id}: ${event.status}\n`));
          break;
        case "plan_revised":
          startBlock(undefined);
          breakLine();
          write(style.dim(`plan revised (${plural(event.revised_steps.length, "step", "steps")}): ${oneLine(event.reason)}\n`));
          break;
        case "plan_approval_request":
          startBlock(undefined);
          breakLine();
          write(`${style.yellow("?")} plan ${oneLine(event.title)} waits for approval\n`);
          break;
        // permission_request: the CLI answers every ask itself and says so through answered().
        default:
          break;
      }
    },
    answered(ask, reply, by) {
      if (by === "user") return;
      startBlock(undefined);
      breakLine();
      if (by === "yes") {
        write(style.dim(`? ${ask.permission} ${askTarget(ask)} → allowed ${reply === "always" ? "always" : "once"} (--yes)\n`));
      } else {
        out.stderr.write(`${deniedNoOneToAsk(ask)}\n`);
      }
    },
    end({ outcome, elapsedMs, session }) {
      startBlock(undefined);
      breakLine();
      if (outcome.status === "error") out.stderr.write(errorLine(outcome));
      // A run refused before it began (bad model, missing key) has nothing to add to its error.
      if (outcome.status === "error" && session === undefined && outcome.steps === 0) return;
      if (wroteAny) write("\n");
      write(`${outcomeLine(style, outcome, elapsedMs, "aborted")}\n`);
      const stop = outcome.stopMessage ?? (outcome.stopReason === undefined ? undefined : STOP_REASONS[outcome.stopReason]);
      if (stop !== undefined) write(`${style.yellow(stop)}\n`);
      if (session) {
        write(`session ${style.bold(session.id)}\n`);
        const labelWidth = Math.max(0, ...session.next.map(([label]) => label.length + 1));
        for (const [label, command] of session.next) write(`  ${`${label}:`.padEnd(labelWidth)} ${command}\n`);
      }
    },
  };
}
