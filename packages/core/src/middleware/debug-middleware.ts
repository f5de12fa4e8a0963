import { isArborError } from "../errors.js";
import { DEBUG_EVENT_TYPE, type DebugLevel, type DebugRecord, type LlmDebugRecord } from "../events/debug-records.js";
import { outputText, promptText } from "../events/prompt-text.js";
import type { LlmCall } from "../llm/llm-call-log.js";
import type { MiddlewareContext, RunMiddleware } from "../loop/run-types.js";
import type { RunEvent, RunEventOf } from "../model/run-events.js";
import { cutText } from "../model/text.js";

/** At `standard` a model call's input is cut to 2,000 characters and its output to 1,000: enough to follow a run, small enough to keep. */
export const STANDARD_INPUT_CHARS = 2000;
export const STANDARD_OUTPUT_CHARS = 1000;
/** At `full`, a field longer than this is cut, so a record stays far below the event log's size limit. */
export const FULL_FIELD_CHARS = 1_000_000;

export interface DebugMiddlewareOptions {
  level: DebugLevel;
  /** Append the run's records to its session's event log when the run ends (default true). */
  persist?: boolean;
  /** Told about each record as it is made (a collector of one's own, e.g. for OpenTelemetry). */
  onRecord?: (record: DebugRecord) => void;
}

interface OpenCall {
  startedAt: number;
  input: string;
  /** `llmCalls.started` at `llm_start`: the call is the one the log sees after it. */
  mark: number;
  tool?: string;
  node?: string;
  model?: string;
}

interface RunRecords {
  records: DebugRecord[];
  open: Map<string, OpenCall>;
}

const RANK: Readonly<Record<DebugLevel, number>> = { off: 0, basic: 1, standard: 2, full: 3 };

function cut(text: string, max: number): { text: string; cut: boolean } {
  return { text: cutText(text, max), cut: text.length > max };
}

/**
 * Records tool calls (`basic`), model calls (`standard`) and their whole inputs and outputs (`full`)
 * of every run it is in, and appends them to the run's session when the run ends (one write per
 * run, not per call), before the run's `done` or `error` passes on.
 * Passes every event on unchanged. Its state is per run, so one instance may serve many
 * concurrent runs.
 */
export class DebugMiddleware implements RunMiddleware {
  readonly name = "DebugMiddleware";
  readonly level: DebugLevel;
  readonly wants: RunMiddleware["wants"];
  private readonly persist: boolean;
  private readonly onRecord: ((record: DebugRecord) => void) | undefined;
  private readonly runs = new Map<string, RunRecords>();

  constructor(options: DebugMiddlewareOptions) {
    this.level = options.level;
    this.persist = options.persist ?? true;
    this.onRecord = options.onRecord;
    this.wants = options.level === "full" ? { llmCalls: "full" } : {};
  }

  /** The records of a run still in progress (a run's records are handed over and dropped when it ends). */
  records(runId: string): readonly DebugRecord[] {
    return this.runs.get(runId)?.records ?? [];
  }

  onRunStart(ctx: MiddlewareContext): void {
    if (this.level !== "off") this.runs.set(ctx.runId, { records: [], open: new Map() });
  }

  onEvent(event: RunEvent, ctx: MiddlewareContext): RunEvent | Promise<RunEvent> {
    const run = this.runs.get(ctx.runId);
    if (!run) return event;
    switch (event.type) {
      case "done":
      case "error":
        // Kept before the last event passes on, so a client that has seen `done` can read the records.
        return this.finish(ctx).then(() => event);
      case "tool_start":
        run.open.set(`tool:${event.call_id}`, { startedAt: ctx.now(), input: event.input, mark: 0, tool: event.tool });
        break;
      case "tool_end":
        this.toolEnd(run, event, ctx);
        break;
      case "llm_start":
        if (RANK[this.level] >= RANK.standard) {
          run.open.set(`llm:${event.call_id}`, {
            startedAt: ctx.now(),
            input: event.input,
            mark: ctx.llmCalls?.started ?? 0,
            node: event.node,
            model: event.model,
          });
        }
        break;
      case "llm_end":
        if (RANK[this.level] >= RANK.standard) this.llmEnd(run, event, ctx);
        break;
      default:
        break;
    }
    return event;
  }

  /** Nothing left to do when the last event was seen; otherwise (a middleware before this one suppressed it) finish now. */
  onRunEnd(ctx: MiddlewareContext): Promise<void> {
    return this.finish(ctx);
  }

  /** Records calls still open as interrupted and appends the run's records to its session, once. */
  private async finish(ctx: MiddlewareContext): Promise<void> {
    const run = this.runs.get(ctx.runId);
    if (!run) return;
    this.runs.delete(ctx.runId);
    for (const [key, open] of run.open) {
      const base = this.base(ctx, key.slice(key.indexOf(":") + 1), open.startedAt);
      this.add(
        run,
        open.tool !== undefined
          ? { kind: "tool", ...base, tool: open.tool, interrupted: true }
          : { kind: "llm", ...base, node: open.node ?? "", model: open.model ?? "", interrupted: true },
      );
    }
    if (!this.persist || run.records.length === 0) return;
    try {
      await ctx.store.appendEvents(
        ctx.sessionId,
        run.records.map((data) => ({ type: DEBUG_EVENT_TYPE, data: data as Record<string, unknown> })),
      );
    } catch (err) {
      // A run that failed before it made its session has nowhere to keep records; that is not an error.
      if (!isArborError(err, "session_not_found") && !isArborError(err, "invalid_id")) throw err;
    }
  }

  private add(run: RunRecords, record: DebugRecord): void {
    run.records.push(record);
    this.onRecord?.(record);
  }

  /** The fields every record has (the schema's `common`): which run and call, at what level, started when. */
  private base(ctx: MiddlewareContext, callId: string, startedAt: number) {
    const level = this.level as Exclude<DebugLevel, "off">;
    return { run_id: ctx.runId, call_id: callId, level, started_at: new Date(startedAt).toISOString() };
  }

  /** Takes an ending call off the open ones; a call whose start was not seen is taken to start now. */
  private close(run: RunRecords, key: string, ctx: MiddlewareContext): { open?: OpenCall; startedAt: number } {
    const open = run.open.get(key);
    run.open.delete(key);
    return { ...(open ? { open } : {}), startedAt: open?.startedAt ?? ctx.now() };
  }

  private toolEnd(run: RunRecords, event: RunEventOf<"tool_end">, ctx: MiddlewareContext): void {
    const { open, startedAt } = this.close(run, `tool:${event.call_id}`, ctx);
    const record: DebugRecord = {
      kind: "tool",
      ...this.base(ctx, event.call_id, startedAt),
      tool: event.tool,
      duration_ms: event.duration_ms ?? Math.max(0, Math.round(ctx.now() - startedAt)),
      is_error: event.is_error,
    };
    if (this.level === "standard") {
      const input = cut(open?.input ?? "", STANDARD_INPUT_CHARS);
      const output = cut(event.output, STANDARD_OUTPUT_CHARS);
      Object.assign(record, { input: input.text, output: output.text });
    } else if (this.level === "full") {
      const input = cut(open?.input ?? "", FULL_FIELD_CHARS);
      const output = cut(event.output, FULL_FIELD_CHARS);
      Object.assign(record, { input: input.text, output: output.text, ...(input.cut || output.cut ? { truncated: true } : {}) });
    }
    this.add(run, record);
  }

  private llmEnd(run: RunRecords, event: RunEventOf<"llm_end">, ctx: MiddlewareContext): void {
    const { open, startedAt } = this.close(run, `llm:${event.call_id}`, ctx);
    // The last call made since llm_start is the one that answered (earlier ones were retried).
    const call: LlmCall | undefined = open && ctx.llmCalls ? ctx.llmCalls.since(open.mark).at(-1) : undefined;
    const cached = event.cached ?? call?.cached;
    const record: LlmDebugRecord = {
      kind: "llm",
      ...this.base(ctx, event.call_id, startedAt),
      node: event.node,
      model: event.model,
      duration_ms: event.duration_ms,
      ...(event.input_tokens === undefined ? {} : { input_tokens: event.input_tokens }),
      ...(event.output_tokens === undefined ? {} : { output_tokens: event.output_tokens }),
      ...(event.total_tokens === undefined ? {} : { total_tokens: event.total_tokens }),
      ...(cached === undefined ? {} : { cached }),
    };
    if (this.level === "full" && call?.prompt) {
      const input = cut(promptText(call.prompt), FULL_FIELD_CHARS);
      const output = cut(call.output ? outputText(call.output) : event.output, FULL_FIELD_CHARS);
      Object.assign(record, {
        input: input.text,
        output: output.text,
        ...(call.settings ? { settings: call.settings } : {}),
        ...(call.finishReason ? { finish_reason: call.finishReason } : {}),
        ...(input.cut || output.cut ? { truncated: true } : {}),
      });
    } else {
      Object.assign(record, {
        input: cut(open?.input ?? event.input, STANDARD_INPUT_CHARS).text,
        output: cut(event.output, STANDARD_OUTPUT_CHARS).text,
      });
    }
    this.add(run, record);
  }
}
