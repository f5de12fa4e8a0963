import type { ScriptAction, ScriptFinishReason, ScriptStep, StepContext } from "./script.js";

/**
 * A step normalized once for both transports: deltas already split, tool inputs already JSON text, defaults
 * filled in, and the split between what happens before the call answers and what happens in the stream.
 */

export interface PlannedError {
  status: number;
  message: string;
  /** Lower-case header names, as Node and fetch report them. */
  headers: Record<string, string>;
  code: string | null;
  errorType: string;
  at: "call" | "stream" | "part";
}

export type PlanOp =
  | { kind: "text"; deltas: readonly string[] }
  | { kind: "reasoning"; deltas: readonly string[] }
  | { kind: "tool-call"; id: string; name: string; inputText: string; deltas: readonly string[] }
  | { kind: "delay"; ms: number }
  | { kind: "hang" }
  | { kind: "error"; error: PlannedError }
  | { kind: "malformed"; raw: string };

export interface PlannedUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number | undefined;
}

export interface StepPlan {
  ops: readonly PlanOp[];
  /** `ops[0 .. callPhaseEnd)` run before the call answers: a delay there is latency, an error an HTTP status. */
  callPhaseEnd: number;
  usage: PlannedUsage;
  finishReason: ScriptFinishReason;
  /** The provider's own name for the finish reason (OpenAI's by default). */
  rawFinishReason: string;
}

const OPENAI_FINISH: Record<ScriptFinishReason, string> = {
  stop: "stop",
  length: "length",
  "content-filter": "content_filter",
  "tool-calls": "tool_calls",
  error: "error",
  other: "other",
};

/** Resolves a step (calling it if it is a function) and plans it; `stepIndex` makes default tool call ids stable. */
export function planStep(step: ScriptStep, context: StepContext): StepPlan {
  const actions = typeof step === "function" ? step(context) : step;
  return planActions(actions, context.index);
}

export function planActions(actions: readonly ScriptAction[], stepIndex: number): StepPlan {
  const ops: PlanOp[] = [];
  let callPhaseEnd = -1;
  let finish: { reason: ScriptFinishReason; raw?: string } | undefined;
  let toolCalls = 0;
  let tokens: PlannedUsage = {
    inputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: undefined,
  };
  // The call phase ends at the first thing a client could see as a streamed response.
  const startStream = () => {
    if (callPhaseEnd < 0) callPhaseEnd = ops.length;
  };

  for (const action of actions) {
    switch (action.type) {
      case "text":
      case "reasoning":
        startStream();
        ops.push({ kind: action.type, deltas: toDeltas(action.text, action.chunks) });
        break;
      case "tool-call": {
        startStream();
        const inputText = typeof action.input === "string" ? action.input : JSON.stringify(action.input);
        ops.push({
          kind: "tool-call",
          id: action.id ?? `call_${stepIndex}_${toolCalls}`,
          name: action.name,
          inputText,
          deltas: toDeltas(inputText, action.chunks),
        });
        toolCalls++;
        break;
      }
      case "usage":
        tokens = {
          inputTokens: action.inputTokens ?? 0,
          outputTokens: action.outputTokens ?? 0,
          reasoningTokens: action.reasoningTokens ?? 0,
          cacheReadTokens: action.cacheReadTokens ?? 0,
          cacheWriteTokens: action.cacheWriteTokens,
        };
        break;
      case "finish":
        finish = action.raw === undefined ? { reason: action.reason } : { reason: action.reason, raw: action.raw };
        break;
      case "error": {
        const at = action.at ?? (callPhaseEnd < 0 ? "call" : "stream");
        if (at === "call" && callPhaseEnd >= 0) {
          throw new Error(
            "script: an error with at: 'call' cannot follow output in the same step (the call has already answered)",
          );
        }
        if (at !== "call") startStream();
        ops.push({ kind: "error", error: planError(action, at) });
        break;
      }
      case "delay":
        if (!(action.ms >= 0)) throw new Error(`script: delay needs ms >= 0, got ${action.ms}`);
        ops.push({ kind: "delay", ms: action.ms });
        break;
      case "hang":
        ops.push({ kind: "hang" });
        break;
      case "malformed":
        startStream();
        ops.push({
          kind: "malformed",
          raw: action.raw ?? '{"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"ind',
        });
        break;
      default:
        throw new Error(`script: unknown action ${JSON.stringify(action satisfies never)}`);
    }
  }

  // An error reported in-stream or broken output ends the response as a failed one unless the step says otherwise.
  const failed = ops.some((op) => op.kind === "malformed" || (op.kind === "error" && op.error.at === "part"));
  const reason = finish?.reason ?? (failed ? "error" : toolCalls > 0 ? "tool-calls" : "stop");
  return {
    ops,
    callPhaseEnd: callPhaseEnd < 0 ? ops.length : callPhaseEnd,
    usage: tokens,
    finishReason: reason,
    rawFinishReason: finish?.raw ?? OPENAI_FINISH[reason],
  };
}

function planError(action: Extract<ScriptAction, { type: "error" }>, at: PlannedError["at"]): PlannedError {
  const status = action.status ?? 500;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(action.headers ?? {})) headers[name.toLowerCase()] = value;
  if (action.retryAfter !== undefined) headers["retry-after"] = String(action.retryAfter);
  return {
    status,
    message: action.message ?? defaultMessage(status),
    headers,
    code: action.code ?? (status === 429 ? "rate_limit_exceeded" : null),
    errorType: action.errorType ?? defaultErrorType(status),
    at,
  };
}

function defaultMessage(status: number): string {
  if (status === 429) return "Rate limit reached (scripted)";
  if (status >= 500) return `The server had an error while processing your request (scripted ${status})`;
  return `Scripted error ${status}`;
}

// OpenAI's error `type` values for the common statuses.
function defaultErrorType(status: number): string {
  if (status === 429) return "requests";
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/**
 * Splits text into `chunks` pieces of near-equal length, never inside a surrogate pair (a delta must be valid
 * text on its own). Linear in the text's length.
 */
export function toDeltas(value: string | readonly string[], chunks = 1): readonly string[] {
  if (typeof value !== "string") return value;
  if (value === "") return [];
  if (!(chunks > 1)) return [value];
  const points = Array.from(value);
  const n = Math.min(Math.floor(chunks), points.length);
  if (n === points.length) return points;
  const deltas: string[] = [];
  for (let i = 0; i < n; i++) {
    const from = Math.floor((i * points.length) / n);
    const to = Math.floor(((i + 1) * points.length) / n);
    deltas.push(points.slice(from, to).join(""));
  }
  return deltas;
}
