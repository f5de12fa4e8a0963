import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { isContextOverflowError } from "../context/overflow.js";
import { isArborError } from "../errors.js";
import { cacheMarkFor, withCacheBreakpoints } from "../llm/cache-breakpoints.js";
import { costOf } from "../llm/catalog.js";
import { callModel } from "../llm/model-call.js";
import { explainProviderError } from "../llm/provider-errors.js";
import type { StepSink, StreamedToolCall } from "../llm/stream-step.js";
import { thinkingCallOptions } from "../llm/thinking.js";
import type { AssistantMessage, TokenUsage } from "../model/message.js";
import { cutText } from "../model/text.js";
import { callKey, type DoomLoop, describeDoomLoop, detectDoomLoop, doomLoopRequest } from "../tools/doom-loop.js";
import { contextFits, guardContext } from "./context-guard.js";
import { appendCustom, appendMessage, chargeRun } from "./journal.js";
import type { RunContext, RunEventInput } from "./run-context.js";
import { RUN_ERROR_ENTRY_TYPE } from "./run-error.js";
import type { StepsOutcome, StopReason } from "./run-types.js";
import { lastInput } from "./step-input.js";
import { limitToolCalls, toolLimits } from "./tool-limits.js";
import { recordInterrupted, runToolCalls, startRecordOf } from "./tool-runner.js";
import { TOOL_STARTED_ENTRY_TYPE } from "./tool-start.js";
import { spentTokens } from "./trace-spend.js";

/** Enough history for the longest pattern the guard looks for (3 repeats of a 3-call cycle) plus texts. */
const HISTORY_LIMIT = 24;

/** The message's one-line `description` for lists and traces: the assistant's text, else the tools it called. */
function describeAssistant(text: string, calls: readonly StreamedToolCall[]): string {
  if (text.trim() !== "") return cutText(text.trim(), 200);
  return calls.length > 0 ? `tool call: ${calls.map((c) => c.toolName).join(", ")}` : "";
}

/** Streams the run's text and reasoning as events. */
function eventSink(ctx: Pick<RunContext, "emit">): StepSink {
  return {
    text: (delta) => ctx.emit({ type: "token", content: delta }),
    reasoning: (delta) => ctx.emit({ type: "reasoning", content: delta }),
  };
}

/** The system prompt of one model call: the run's, then what extensions add (the plan in force), then their rewrites. */
function stepSystem(ctx: RunContext, base: string): string {
  // Indexed loops over the extensions, here and below: they run every step, and an iterator is an object each time.
  const exts = ctx.extensions;
  let system = base;
  for (let i = 0; i < exts.length; i++) {
    const more = exts[i]!.system?.(ctx);
    if (more) system = `${system}\n\n${more}`;
  }
  for (let i = 0; i < exts.length; i++) {
    const ext = exts[i]!;
    if (ext.transformSystem) system = ext.transformSystem(ctx, system);
  }
  return system;
}

/** The first reason an extension gives to end the run after this step. */
function extensionStop(ctx: RunContext): StopReason | undefined {
  const exts = ctx.extensions;
  for (let i = 0; i < exts.length; i++) {
    const reason = exts[i]!.stop?.(ctx);
    if (reason) return reason;
  }
  return undefined;
}

/** Runs one step between the extensions' `beforeStep` and `afterStep`, whatever way it ends. */
export async function asStep<T>(ctx: RunContext, body: () => Promise<T>): Promise<T> {
  const exts = ctx.extensions;
  // Only what a hook returns is awaited: most extensions have no hook here, and awaiting their
  // undefined cost a promise and a turn of the microtask queue each, per extension, every step.
  for (let i = 0; i < exts.length; i++) {
    const pending = exts[i]!.beforeStep?.(ctx);
    if (pending !== undefined) await pending;
  }
  try {
    return await body();
  } finally {
    for (let i = 0; i < exts.length; i++) {
      const pending = exts[i]!.afterStep?.(ctx);
      if (pending !== undefined) await pending;
    }
  }
}

/**
 * The trace's token or tool-call budget, or the whole trace's spending cap, is spent: say which, for
 * the stop. `moreTokens` and `moreCost`: as it will be once a message that spent them is written.
 */
function budgetSpent(ctx: RunContext, nextCalls: number, moreTokens = 0, moreCost = 0): string | undefined {
  const shared = ctx.traceSpend.spent(moreTokens, moreCost);
  if (shared) return shared;
  const { maxTokens, maxToolCalls } = ctx.budget;
  if (maxTokens !== undefined && ctx.tally.usage.input + ctx.tally.usage.output + moreTokens >= maxTokens) {
    return `the token budget of ${maxTokens} is spent`;
  }
  if (maxToolCalls !== undefined && ctx.toolCalls + nextCalls > maxToolCalls) {
    return `the budget of ${maxToolCalls} tool calls is spent`;
  }
  return undefined;
}

function remember(ctx: RunContext, text: string, calls: readonly StreamedToolCall[], parsed: readonly unknown[]): void {
  if (text.trim() !== "") ctx.history.push({ kind: "text", text });
  for (let i = 0; i < calls.length; i++) {
    const tool = calls[i]!.toolName;
    ctx.history.push({ kind: "tool", tool, input: parsed[i], key: callKey(tool, parsed[i]) });
  }
  if (ctx.history.length > HISTORY_LIMIT) ctx.history.splice(0, ctx.history.length - HISTORY_LIMIT);
}

/**
 * Asks `doom_loop` about a loop this step completed, so a stuck model does not burn the budget
 * unseen. Returns false when the run must stop (the ask was refused); allowed, the history is
 * cleared so the same loop is not asked again at once.
 */
async function passesDoomLoopGuard(ctx: RunContext, loop: DoomLoop): Promise<boolean> {
  try {
    const request = doomLoopRequest(loop);
    await ctx.permission.ask({ ...request, metadata: { ...request.metadata, description: describeDoomLoop(loop) } });
    ctx.history.length = 0;
    return true;
  } catch {
    return false;
  }
}

/** How long a run goes on at most before it gives the event loop a turn (see `runSteps`). */
const MAX_TURN_MS = 50;

/** The ReAct loop: stream a step, persist it, run its tools, repeat until the model is done. */
export async function runSteps(ctx: RunContext, maxTurnsNote: string): Promise<StepsOutcome> {
  /** The step retried after the provider said its prompt did not fit: once per step, so a prompt that never fits ends the run. */
  let overflowRetried = 0;
  let turnStart = performance.now();
  // Made once for the run's steps: the sink only forwards to the run's events, and the model's
  // cache mark depends on nothing but the model.
  const run: StepRun = {
    maxTurnsNote,
    sink: eventSink(ctx),
    cacheMark: cacheMarkFor(ctx.model.ref, ctx.model.model.provider),
  };
  for (;;) {
    // A run whose model and store never wait (a replayed or zero-latency model over a synchronous
    // store) would hold the event loop for its whole length: its lease's heartbeat could not fire, so
    // after two thirds of the lease's life its own writes found the lease stale (a 1,012-step run lost
    // its session on a loaded machine), and nothing else of the process ran meanwhile (its event
    // log's writes, other requests). Real time, not the run's clock: this is about the event loop.
    if (performance.now() - turnStart > MAX_TURN_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turnStart = performance.now();
    }
    if (ctx.signal.aborted) return { status: "aborted" };
    // Before every step, so after the user's message and after each step's tool results: either can
    // overflow. Nearly every step fits, and is told so without waiting on the guard.
    if (!contextFits(ctx)) await guardContext(ctx);
    if (ctx.signal.aborted) return { status: "aborted" };
    const outcome = await asStep(ctx, () => oneStep(ctx, run, overflowRetried));
    if (outcome === "retry") {
      // The refused call wrote nothing, so the retry takes the same step number.
      overflowRetried = ctx.tally.steps + 1;
      continue;
    }
    if (outcome) return outcome;
  }
}

/** What every step of one `runSteps` uses, made once. */
interface StepRun {
  readonly maxTurnsNote: string;
  readonly sink: StepSink;
  readonly cacheMark: ReturnType<typeof cacheMarkFor>;
}

/**
 * One step: call the model, persist what it said, run its tools. Returns how the run ends, "retry"
 * when the prompt did not fit and was compacted (the step is redone once), or undefined to go on.
 */
async function oneStep(ctx: RunContext, run: StepRun, overflowRetried: number): Promise<StepsOutcome | "retry" | undefined> {
  const step = ctx.tally.steps + 1;
  const lastStep = step >= ctx.maxTurns;
  const system = stepSystem(ctx, lastStep ? `${ctx.system}\n\n${run.maxTurnsNote}` : ctx.system);
  const options: LanguageModelV4CallOptions = {
    prompt: withCacheBreakpoints(ctx.prompts.prompt(system, ctx.state), run.cacheMark),
    ...thinkingCallOptions(ctx.state.thinkingLevel ?? ctx.agent.thinking ?? ctx.config.thinking),
    maxOutputTokens: Math.min(ctx.config.llm.maxTokens, ctx.model.info.limit.output),
    temperature: ctx.agent.temperature ?? ctx.config.llm.temperature,
    abortSignal: ctx.signal,
  };
  // Optional keys are set after the others, in the order they always had: no object made to be spread.
  if (!lastStep && ctx.tools.length > 0) {
    options.tools = ctx.tools;
    options.toolChoice = { type: "auto" };
  }
  const callId = `llm_${step}`;
  // What the call answers: the latest message, cut (the debug middleware records whole prompts).
  const input = lastInput(ctx);
  const llmStart: Extract<RunEventInput, { type: "llm_start" }> = {
    type: "llm_start",
    call_id: callId,
    node: ctx.agent.name,
    model: ctx.model.ref,
    input,
    motivation: "",
  };
  if (ctx.state.leafId !== null) llmStart.leaf_id = ctx.state.leafId;
  ctx.emit(llmStart);
  const started = ctx.clock.now();
  const { stream, failure } = await callModel(ctx, ctx.model.model, options, run.sink);
  const durationMs = Math.max(0, Math.round(ctx.clock.now() - started));
  const usage: TokenUsage | undefined = stream.usage;
  const cost = usage ? costOf(usage, ctx.model.info.cost) : 0;
  const priced = ctx.model.info.cost !== undefined;
  const output = cutText(stream.text, 1000);
  const node = ctx.agent.name;
  const model = ctx.model.ref;
  ctx.emit(
    usage
      ? {
          type: "llm_end",
          call_id: callId,
          node,
          model,
          duration_ms: durationMs,
          input_tokens: usage.input,
          output_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          input,
          output,
        }
      : { type: "llm_end", call_id: callId, node, model, duration_ms: durationMs, input, output },
  );

  if (failure && !stream.produced && isContextOverflowError(failure) && overflowRetried !== step) {
    if (usage) chargeRun(ctx, { usage, cost, costKnown: priced });
    await guardContext(ctx, { force: true });
    return "retry";
  }

  const limits = toolLimits(ctx.config);
  const { content, calls, refusals } = limitToolCalls(stream.content, stream.toolCalls, limits);
  const parsed: unknown[] = [];
  for (let i = 0; i < content.length; i++) {
    const part = content[i]!;
    if (part.type === "tool-call") parsed.push(part.input);
  }
  const ended = stream.aborted ? "aborted" : failure ? "error" : undefined;
  const message: AssistantMessage = {
    role: "assistant",
    content,
    description: describeAssistant(stream.text, calls),
    model: ctx.model.ref,
    agent: ctx.agent.name,
    durationMs,
    finishReason: ended ?? stream.finishReason ?? "other",
  };
  if (usage) {
    message.tokens = usage;
    // An unpriced model's message has no cost rather than a cost of $0.
    if (priced) message.cost = cost;
  }
  if (ended === "aborted") message.error = { code: "aborted", message: "The run was aborted during this step." };
  if (failure) message.error = { code: "provider_error", message: failure.message };

  if (ended) {
    // Keep what was streamed (the user saw it), and close every call the model started so the history stays valid.
    if (content.length > 0) {
      await appendMessage(ctx, message);
      await recordInterrupted(ctx, calls);
    } else {
      // Nothing of the call is stored to carry what it spent; a failure's record counts the step.
      chargeRun(ctx, { usage, cost, costKnown: !usage || priced, steps: failure ? 0 : 1 });
      if (failure) {
        await appendCustom(ctx, RUN_ERROR_ENTRY_TYPE, { code: "provider_error", message: failure.message, model: ctx.model.ref });
      }
    }
    if (ended === "aborted") return { status: "aborted" };
    const explained = failure
      ? explainProviderError(
          { status: failure.status, type: failure.type, detail: failure.detail ?? failure.message },
          ctx.model.ref,
        )
      : `${ctx.model.ref}: the model call failed.`;
    return { status: "error", error: { code: "provider_error", message: explained } };
  }

  if (calls.length === 0) {
    await appendMessage(ctx, message);
    if (lastStep) return { status: "done", stopReason: "max_turns" };
    return budgetStop(ctx) ?? { status: "done", stopReason: "finished" };
  }

  remember(ctx, stream.text, calls, parsed);
  // Looked for at once: a step that completes no loop (nearly all) has nothing to wait for.
  const loop = detectDoomLoop(ctx.history);
  // When the first call will start right after the message (no budget stop, no doom-loop ask between
  // them, the call not refused), its start record is stored in the message's own append: one commit
  // instead of two, the message still stored before any tool runs. Otherwise the message is stored
  // alone first, so a crash during an ask loses nothing of it.
  const first = calls[0]!;
  const firstStarted =
    loop || refusals.has(first.toolCallId) || budgetSpent(ctx, calls.length, spentTokens(usage), priced ? cost : 0)
      ? undefined
      : startRecordOf(ctx, first);
  const messageId = (
    await appendMessage(ctx, message, firstStarted && { customType: TOOL_STARTED_ENTRY_TYPE, data: firstStarted })
  ).id;
  const spent = budgetSpent(ctx, calls.length);
  if (spent) {
    // The start record was then kept out of the message's append, unless an extension changed the
    // message's tokens after the guess above; either way no call runs.
    await recordInterrupted(ctx, calls, `[Stopped: ${spent}]`);
    return { status: "done", stopReason: "budget", stopMessage: `Stopped: ${spent}.` };
  }
  if (loop && !(await passesDoomLoopGuard(ctx, loop))) {
    await recordInterrupted(ctx, calls, "[Stopped: the same calls kept repeating and the user chose to stop]");
    return { status: "done", stopReason: "doom_loop" };
  }
  ctx.toolCalls += calls.length;
  const { rejected } = await runToolCalls(ctx, messageId, calls, cutText(stream.text, 200), {
    concurrency: limits.concurrency,
    refusals,
    firstStarted,
  });
  if (ctx.signal.aborted) return { status: "aborted" };
  if (rejected) return { status: "done", stopReason: "permission_rejected" };
  const stop = extensionStop(ctx);
  if (stop) return { status: "done", stopReason: stop };
  if (lastStep) return { status: "done", stopReason: "max_turns" };
  return budgetStop(ctx);
}

function budgetStop(ctx: RunContext): StepsOutcome | undefined {
  const spent = budgetSpent(ctx, 0);
  return spent ? { status: "done", stopReason: "budget", stopMessage: `Stopped: ${spent}.` } : undefined;
}

export function errorOf(err: unknown): { code: string; message: string } {
  if (isArborError(err)) return { code: err.code, message: err.message };
  return { code: "internal_error", message: err instanceof Error ? err.message : String(err) };
}
