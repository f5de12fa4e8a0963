import type { RunEvent } from "@arbor/core";
import { elicitationOfEvent, type PendingElicitationAsk } from "../../api/elicitations.js";

/**
 * One run as the chat shows it while it streams: the run events folded into items in
 * arrival order (text and reasoning runs merge, tool calls and asks keep their place). Pure, so
 * the same fold serves a live stream, a resumed one and the debug panel's LLM calls.
 */

export type RunStatus = "starting" | "running" | "done" | "error" | "aborted";

export interface LiveToolCall {
  callId: string;
  tool: string;
  /** The input as JSON text. */
  input: string;
  motivation: string;
  status: "running" | "done" | "error";
  output?: string;
  cached?: boolean;
  durationMs?: number;
  /** Page clock at tool_start, for a live elapsed time. */
  startedAt: number;
  /**
   * The latest `tool_progress` report: bash's output so far, a read's bytes, an MCP server's
   * message. Each report carries the whole state, so only the last one is kept.
   */
  progress?: { title?: string; metadata?: Record<string, unknown> };
}

export interface LlmCall {
  callId: string;
  node: string;
  model: string;
  input: string;
  output?: string;
  durationMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  startedAt: number;
}

export interface PermissionAsk {
  id: string;
  permission: string;
  patterns: string[];
  tool?: string;
  callId?: string;
  metadata?: Record<string, unknown>;
  reply?: "once" | "always" | "reject";
}

/** A question the agent asked (the `question` tool); answered with `POST /api/asks/:id`. */
export interface QuestionAsk {
  id: string;
  question: string;
  header?: string;
  /** The choices; absent for a free-text question. */
  options?: Array<{ label: string; description?: string }>;
  multiple: boolean;
  /** Own words are taken (always, without options). */
  custom: boolean;
  /** What this page sent: the answers chosen or typed, or a dismissal. */
  answer?: { answers: string[] } | { dismissed: true };
}

/** An MCP server's elicitation the run announced; `ended` once the run says how it ended (answered anywhere). */
export interface RunElicitation {
  ask: PendingElicitationAsk;
  ended?: "accept" | "decline" | "cancel";
}

export interface PlanAsk {
  planId: string;
  title: string;
  steps: Array<{ id: string | number; title: string; status: string }>;
  /** The answer this page sent (`POST /api/plan/approve`). */
  answer?: { approved: boolean; reason?: string };
}

/**
 * A message the user sent to the run while it worked: shown at once where it was sent, "waiting" until
 * the session shows the run took it in at a step ("read"), or "failed" when the server refused it.
 */
export interface SteerView {
  id: string;
  text: string;
  status: "sending" | "waiting" | "read" | "failed";
  error?: string;
}

export type RunItem =
  | { kind: "text"; text: string }
  | { kind: "steer"; id: string }
  | { kind: "reasoning"; text: string }
  | { kind: "tool"; callId: string }
  | { kind: "permission"; id: string }
  | { kind: "question"; id: string }
  | { kind: "plan"; planId: string };

export interface RunState {
  /** Client-side key: the session id once known. */
  key: string;
  sessionId?: string;
  prompt: string;
  status: RunStatus;
  error?: { message: string; code?: string };
  items: RunItem[];
  tools: Record<string, LiveToolCall>;
  permissions: Record<string, PermissionAsk>;
  questions: Record<string, QuestionAsk>;
  /** MCP elicitations announced by `elicitation_request`, by ask id, in arrival order. */
  elicitations: Record<string, RunElicitation>;
  plans: Record<string, PlanAsk>;
  steers: Record<string, SteerView>;
  llmCalls: LlmCall[];
  /** The last SSE id read, to resume after a dropped connection. */
  lastEventId?: number;
}

export function newRun(key: string, prompt: string, sessionId?: string): RunState {
  const run: RunState = {
    key,
    prompt,
    status: "starting",
    items: [],
    tools: {},
    permissions: {},
    questions: {},
    elicitations: {},
    plans: {},
    steers: {},
    llmCalls: [],
  };
  if (sessionId !== undefined) run.sessionId = sessionId;
  return run;
}

function appendText(items: RunItem[], kind: "text" | "reasoning", text: string): RunItem[] {
  const last = items[items.length - 1];
  if (last && last.kind === kind) return [...items.slice(0, -1), { kind, text: last.text + text }];
  return [...items, { kind, text }];
}

/** The run after `event`; `now` is the page clock (performance.now or Date.now). */
export function applyRunEvent(run: RunState, event: RunEvent, now: number): RunState {
  const next: RunState = { ...run, sessionId: event.session_id };
  if (next.status === "starting") next.status = "running";
  switch (event.type) {
    case "token":
      next.items = appendText(run.items, "text", event.content);
      break;
    case "reasoning":
      next.items = appendText(run.items, "reasoning", event.content);
      break;
    case "tool_start":
      next.tools = {
        ...run.tools,
        [event.call_id]: {
          callId: event.call_id,
          tool: event.tool,
          input: event.input,
          motivation: event.motivation,
          status: "running",
          startedAt: now,
        },
      };
      if (!run.items.some((i) => i.kind === "tool" && i.callId === event.call_id)) {
        next.items = [...run.items, { kind: "tool", callId: event.call_id }];
      }
      break;
    case "tool_progress": {
      const call = run.tools[event.call_id];
      // A report that arrives after the end (or for a call this page never saw start) has nothing to update.
      if (call?.status !== "running") break;
      const progress: NonNullable<LiveToolCall["progress"]> = {};
      if (event.title !== undefined) progress.title = event.title;
      if (event.metadata !== undefined) progress.metadata = event.metadata;
      next.tools = { ...run.tools, [event.call_id]: { ...call, progress } };
      break;
    }
    case "tool_end": {
      const started = run.tools[event.call_id];
      const call: LiveToolCall = {
        ...(started ?? { callId: event.call_id, tool: event.tool, input: "", motivation: "", startedAt: now }),
        status: event.is_error ? "error" : "done",
        output: event.output,
        cached: event.cached,
      };
      const duration = event.duration_ms ?? (started ? Math.round(now - started.startedAt) : undefined);
      if (duration !== undefined) call.durationMs = duration;
      next.tools = { ...run.tools, [event.call_id]: call };
      if (!started) next.items = [...run.items, { kind: "tool", callId: event.call_id }];
      break;
    }
    case "llm_start":
      next.llmCalls = [
        ...run.llmCalls,
        { callId: event.call_id, node: event.node, model: event.model, input: event.input, startedAt: now },
      ];
      break;
    case "llm_end": {
      const index = run.llmCalls.findIndex((c) => c.callId === event.call_id);
      const base: LlmCall =
        index === -1
          ? { callId: event.call_id, node: event.node, model: event.model, input: event.input, startedAt: now }
          : (run.llmCalls[index] as LlmCall);
      const ended: LlmCall = { ...base, model: event.model, output: event.output, durationMs: event.duration_ms };
      if (event.input) ended.input = event.input;
      if (event.input_tokens !== undefined) ended.inputTokens = event.input_tokens;
      if (event.output_tokens !== undefined) ended.outputTokens = event.output_tokens;
      if (event.total_tokens !== undefined) ended.totalTokens = event.total_tokens;
      next.llmCalls = index === -1 ? [...run.llmCalls, ended] : run.llmCalls.map((c, i) => (i === index ? ended : c));
      break;
    }
    case "permission_request": {
      const ask: PermissionAsk = { id: event.id, permission: event.permission, patterns: event.patterns };
      if (event.tool !== undefined) ask.tool = event.tool;
      if (event.call_id !== undefined) ask.callId = event.call_id;
      if (event.metadata !== undefined) ask.metadata = event.metadata;
      next.permissions = { ...run.permissions, [event.id]: ask };
      next.items = [...run.items, { kind: "permission", id: event.id }];
      break;
    }
    case "question_request": {
      const ask: QuestionAsk = { id: event.id, question: event.question, multiple: event.multiple, custom: event.custom };
      if (event.header !== undefined) ask.header = event.header;
      if (event.options !== undefined) ask.options = event.options;
      next.questions = { ...run.questions, [event.id]: ask };
      next.items = [...run.items, { kind: "question", id: event.id }];
      break;
    }
    case "elicitation_request": {
      const ask = elicitationOfEvent(event);
      if (ask && !run.elicitations[event.id]) next.elicitations = { ...run.elicitations, [event.id]: { ask } };
      break;
    }
    case "elicitation_answered": {
      const known = run.elicitations[event.id];
      if (known) next.elicitations = { ...run.elicitations, [event.id]: { ...known, ended: event.action } };
      break;
    }
    case "plan_approval_request":
      next.plans = { ...run.plans, [event.plan_id]: { planId: event.plan_id, title: event.title, steps: event.steps } };
      next.items = [...run.items, { kind: "plan", planId: event.plan_id }];
      break;
    case "done":
      next.status = "done";
      break;
    case "error":
      next.status = event.code === "aborted" ? "aborted" : "error";
      next.error = event.code === undefined ? { message: event.content } : { message: event.content, code: event.code };
      break;
    default:
      // plan_created / plan_updated / plan_revised: the plan shows in the DAG and the session tree.
      break;
  }
  return next;
}

/** The run with a steering message added where the stream is now. */
export function withSteer(run: RunState, steer: SteerView): RunState {
  return { ...run, steers: { ...run.steers, [steer.id]: steer }, items: [...run.items, { kind: "steer", id: steer.id }] };
}

/**
 * The run once the session shows `readCount` of its steering messages taken in: they are read in the
 * order they were sent (the session's inbox is first in, first out), skipping any the server refused.
 */
export function withSteersRead(run: RunState, readCount: number): RunState {
  let left = readCount;
  const steers = { ...run.steers };
  for (const item of run.items) {
    if (item.kind !== "steer") continue;
    const steer = steers[item.id];
    if (!steer || steer.status === "failed") continue;
    if (left === 0) break;
    left--;
    if (steer.status !== "read") steers[item.id] = { ...steer, status: "read" };
  }
  return { ...run, steers };
}

export function isActive(run: RunState | undefined): boolean {
  return run !== undefined && (run.status === "starting" || run.status === "running");
}
