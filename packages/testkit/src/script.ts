/**
 * The script format shared by the in-process scripted model and the fake OpenAI-compatible server: a script is a
 * list of steps, each model call (or HTTP request) plays the next step, and a step is a list of actions played in
 * order. Plain data, so one script can drive both transports and be written in JSON (the demo's recorded run).
 */

/** Finish reasons in the AI SDK's unified vocabulary; the fake server maps them to OpenAI's names. */
export type ScriptFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

export interface TextAction {
  type: "text";
  /** The text, or its deltas given one by one. */
  text: string | readonly string[];
  /** Split a string into this many deltas of near-equal length (default 1). */
  chunks?: number;
}

export interface ReasoningAction {
  type: "reasoning";
  text: string | readonly string[];
  chunks?: number;
}

export interface ToolCallAction {
  type: "tool-call";
  /** Tool call id; default `call_<step>_<n>`, deterministic so tests can assert on it. */
  id?: string;
  name: string;
  /** An input object (sent as its JSON), or raw argument text sent verbatim — which may be invalid JSON on purpose. */
  input: Readonly<Record<string, unknown>> | string;
  /** Split the argument text into this many fragments (default 1). */
  chunks?: number;
}

export interface UsageAction {
  type: "usage";
  inputTokens?: number;
  outputTokens?: number;
  /** Part of `outputTokens`. */
  reasoningTokens?: number;
  /** Part of `inputTokens`. */
  cacheReadTokens?: number;
  /** Reported by the in-process model only: Chat Completions has no field for it. */
  cacheWriteTokens?: number;
}

export interface FinishAction {
  type: "finish";
  reason: ScriptFinishReason;
  /** The provider's own finish reason string; defaults to OpenAI's name for `reason`. */
  raw?: string;
}

/**
 * A provider failure. Where it happens, unless `at` says otherwise: at call time (an HTTP error status before any
 * output) when nothing was output before it in the step, else mid-stream as a dropped stream.
 */
export interface ErrorAction {
  type: "error";
  /** HTTP-like status; default 500. 408, 409, 429 and 5xx are retryable, as the AI SDK judges them. */
  status?: number;
  message?: string;
  /** Sent as the `retry-after` header: seconds (number) or an HTTP date / raw value (string). */
  retryAfter?: number | string;
  /** More response headers, e.g. `retry-after-ms`. */
  headers?: Readonly<Record<string, string>>;
  /** OpenAI-style error `code` and `type`; defaults follow the status. */
  code?: string;
  errorType?: string;
  /**
   * `call`: the call itself fails (HTTP error response). `stream`: the stream breaks (connection dropped).
   * `part`: the provider reports the error inside the stream (an `error` part / an SSE `{"error": …}` event),
   * which ends the response.
   */
  at?: "call" | "stream" | "part";
}

/** Waits on the model's clock, so tests advance time by hand instead of sleeping. */
export interface DelayAction {
  type: "delay";
  ms: number;
}

/** Never finishes: the call (or stream, after output) waits until its abort signal fires or the client disconnects. */
export interface HangAction {
  type: "hang";
}

/**
 * Broken provider output, which ends the response: undecodable SSE from the fake server (no finish, no [DONE]),
 * a JSON parse error part then an `error` finish from the in-process model.
 */
export interface MalformedAction {
  type: "malformed";
  /** The broken payload; default a truncated chunk. */
  raw?: string;
}

export type ScriptAction =
  | TextAction
  | ReasoningAction
  | ToolCallAction
  | UsageAction
  | FinishAction
  | ErrorAction
  | DelayAction
  | HangAction
  | MalformedAction;

/** What a dynamic step sees of the call it answers. */
export type StepContext = { source: "model"; index: number; options: unknown } | { source: "http"; index: number; body: unknown };

/** A step: its actions, or a function computing them from the call (e.g. to answer what a tool returned). */
export type ScriptStep = readonly ScriptAction[] | ((call: StepContext) => readonly ScriptAction[]);

export type Script = readonly ScriptStep[];

// Builders: terse scripts in tests, e.g. [[text("hi")], [toolCall("read", { path: "a" }), usage({ inputTokens: 3 })]].

export const text = (value: string | readonly string[], options: { chunks?: number } = {}): TextAction => ({
  type: "text",
  text: value,
  ...options,
});

export const reasoning = (value: string | readonly string[], options: { chunks?: number } = {}): ReasoningAction => ({
  type: "reasoning",
  text: value,
  ...options,
});

export const toolCall = (
  name: string,
  input: ToolCallAction["input"],
  options: { id?: string; chunks?: number } = {},
): ToolCallAction => ({ type: "tool-call", name, input, ...options });

export const usage = (tokens: Omit<UsageAction, "type">): UsageAction => ({ type: "usage", ...tokens });

export const finish = (reason: ScriptFinishReason, raw?: string): FinishAction =>
  raw === undefined ? { type: "finish", reason } : { type: "finish", reason, raw };

export const error = (status: number, options: Omit<ErrorAction, "type" | "status"> = {}): ErrorAction => ({
  type: "error",
  status,
  ...options,
});

export const delay = (ms: number): DelayAction => ({ type: "delay", ms });

export const hang = (): HangAction => ({ type: "hang" });

export const malformed = (raw?: string): MalformedAction =>
  raw === undefined ? { type: "malformed" } : { type: "malformed", raw };
