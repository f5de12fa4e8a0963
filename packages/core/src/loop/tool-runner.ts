import { isArborError } from "../errors.js";
import type { StreamedToolCall } from "../llm/stream-step.js";
import type { Message, ToolMessage } from "../model/message.js";
import { cutText } from "../model/text.js";
import { INTERRUPTED_OUTPUT, PERMISSION_UNANSWERED_OUTPUT } from "../session/context.js";
import { keptAttachments } from "../tools/attachments.js";
import { type ToolCheckpoint, type ToolContext, type ToolOutcome, toolEffects } from "../tools/tool.js";
import { appendCustom, appendMessage } from "./journal.js";
import type { RunContext, RunEventInput, ToolCallInfo } from "./run-context.js";
import { idempotencyKeyOf, TOOL_CHECKPOINT_ENTRY_TYPE, TOOL_STARTED_ENTRY_TYPE, type ToolStarted } from "./tool-start.js";

export { INTERRUPTED_OUTPUT };

export interface ToolBatchResult {
  /** A person said no to one of the calls: the loop stops rather than let the model try around the refusal. */
  rejected: boolean;
}

/** The stored tool message for one outcome; the tool part keeps the title and the full-output ref. */
function toolMessage(call: StreamedToolCall, outcome: ToolOutcome, durationMs: number, waitMs = 0): ToolMessage {
  // An error's attachments are not sent: a provider's error result is text only.
  const attached =
    outcome.isError || outcome.attachments === undefined || outcome.attachments.length === 0
      ? undefined
      : keptAttachments(outcome.attachments);
  const text = attached && attached.notes.length > 0 ? [outcome.output, ...attached.notes].join("\n") : outcome.output;
  // Optional fields are set after the rest, in the order they always had, without an object to spread each.
  const part: ToolMessage["content"][number] = {
    type: "tool-result",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: outcome.isError ? { type: "error-text", value: text } : { type: "text", value: text },
  };
  if (attached && attached.parts.length > 0) part.attachments = attached.parts;
  if (outcome.title) part.title = outcome.title;
  if (outcome.metadata) part.metadata = outcome.metadata;
  if (outcome.truncated) part.fullOutputRef = outcome.truncated.fullOutputRef;
  const message: ToolMessage = { role: "tool", content: [part], description: call.toolName, durationMs };
  if (waitMs > 0) message.permissionWaitMs = waitMs;
  if (outcome.isError) message.error = { code: outcome.code, message: cutText(outcome.output, 500) };
  return message;
}

/** Where a ToolContext keeps what makes its `messages` (not enumerable: a copy of the context does not take it). */
const SEEN = Symbol("seen");

/** The one getter every ToolContext shares for `messages`: it asks the context it is read from. */
function seenMessages(this: { readonly [SEEN]: () => readonly Message[] }): readonly Message[] {
  return this[SEEN]();
}

/**
 * `messages` as an object literal's getter would be: enumerable and configurable. A getter in an
 * object literal (with the optional keys spread in after it) made every context a dictionary-mode
 * object, ~1 KB and six times slower to make; a getter defined with a function of its own per step
 * gave every step's contexts a hidden class of their own. One shared getter keeps them all alike.
 */
const MESSAGES_PROPERTY: PropertyDescriptor = Object.freeze({ get: seenMessages, enumerable: true, configurable: true });

async function persist(ctx: RunContext, message: ToolMessage): Promise<void> {
  await appendMessage(ctx, message);
}

/** Records calls that never ran (the run was aborted or stopped first) so every call has a result. */
export async function recordInterrupted(
  ctx: RunContext,
  calls: readonly StreamedToolCall[],
  output = INTERRUPTED_OUTPUT,
): Promise<void> {
  for (const call of calls) {
    await persist(ctx, toolMessage(call, { isError: true, code: "aborted", output }, 0));
    ctx.emit({
      type: "tool_end",
      call_id: call.toolCallId,
      tool: call.toolName,
      output,
      cached: false,
      is_error: true,
      duration_ms: 0,
    });
  }
}

/** One call's execution inside every extension's `aroundTool`, the first extension outermost. */
function aroundTool(ctx: RunContext, call: ToolCallInfo, invoke: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  let run = invoke;
  for (let i = ctx.extensions.length - 1; i >= 0; i--) {
    const ext = ctx.extensions[i]!;
    if (!ext.aroundTool) continue;
    const inner = run;
    run = () => ext.aroundTool!(ctx, call, inner);
  }
  return run();
}

/** Runs `work` over `items` with at most `size` at a time; resolves when all are done. */
function inPool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  // Most steps make one call: it needs no worker, no array of them, no Promise.all and no promise of its own.
  if (items.length === 1) return work(items[0] as T);
  return inWorkers(items, size, work);
}

async function inWorkers<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, size), items.length) }, worker));
}

/**
 * The record a call that may change something gets before it starts (never a `none` tool's, so
 * reads cost no write); its key is in the record so a resumed run can give a repeat the same one.
 * Undefined when none is written: a `none` tool's call, one the run has no such tool for, any once the run is aborted.
 */
export function startRecordOf(
  ctx: RunContext,
  call: StreamedToolCall,
  keys?: ReadonlyMap<string, string>,
): ToolStarted | undefined {
  const tool = ctx.registry.get(call.toolName);
  if (!tool || !ctx.toolNames.includes(call.toolName) || toolEffects(tool) === "none" || ctx.signal.aborted) return undefined;
  return {
    callId: call.toolCallId,
    tool: call.toolName,
    idempotencyKey: keys?.get(call.toolCallId) ?? idempotencyKeyOf(ctx.sessionId, call.toolCallId),
  };
}

/**
 * Runs one step's calls concurrently (at most `limits.concurrency` at once; a refused call is
 * answered with its refusal and not run), each persisted as its own tool message when it completes,
 * so a crash mid-step keeps every finished result. Never throws for a tool's failure.
 */
export async function runToolCalls(
  ctx: RunContext,
  messageId: string,
  calls: readonly StreamedToolCall[],
  motivation: string,
  limits: {
    readonly concurrency: number;
    readonly refusals: ReadonlyMap<string, string>;
    /** Keys calls were given before (a resumed run repeating them), by call id; others get a new one. */
    readonly keys?: ReadonlyMap<string, string>;
    /** What calls saved on an earlier run (see `ToolContext.checkpoint`), by call id. */
    readonly checkpoints?: ReadonlyMap<string, Record<string, unknown>>;
    /** The first call's start record (`startRecordOf`), already stored with the assistant message. */
    readonly firstStarted?: ToolStarted | undefined;
  } = {
    concurrency: 1,
    refusals: new Map(),
  },
): Promise<ToolBatchResult> {
  let rejected = false;
  const available = ctx.toolNames;
  const invokeOptions = { available };
  // Calls finish in any order; their messages are appended one after another so each result's
  // parent is the one before it and the context follows the same order. The first write of a
  // batch starts at once (most batches write once: one call of a tool that changes nothing).
  let tail: Promise<unknown> | undefined;
  const inOrder = (write: () => Promise<unknown>): Promise<unknown> => {
    tail = tail === undefined ? write() : tail.then(write);
    return tail;
  };
  const persistInOrder = (message: ToolMessage) => inOrder(() => appendMessage(ctx, message));
  // Written in the same order as everything else the batch appends, so it sits after the start record.
  const checkpointOf = (call: StreamedToolCall): ToolCheckpoint => ({
    saved: limits.checkpoints?.get(call.toolCallId),
    save: async (data) => {
      await inOrder(() => appendCustom(ctx, TOOL_CHECKPOINT_ENTRY_TYPE, { callId: call.toolCallId, tool: call.toolName, data }));
    },
  });
  // What the model saw when it made these calls: every call of the batch gets the same frozen view,
  // made when a tool first reads it (most never do; made for every step it copied the whole history,
  // work that grew with the session). The state is never changed in place, so its first `length`
  // items stay what they are now whatever the run appends meanwhile.
  const { items, length } = ctx.state;
  let seenView: readonly Message[] | undefined;
  const seen = (): readonly Message[] => (seenView ??= Object.freeze(items.slice(0, length).map((item) => item.message)));
  await inPool(calls, limits.concurrency, async (call) => {
    const refusal = limits.refusals.get(call.toolCallId);
    // Told after the start record is stored, as everything a watcher hears.
    // The first call's record may be stored already, in the assistant message's append (see `oneStep`).
    const stored = call === calls[0] ? limits.firstStarted : undefined;
    const record = refusal === undefined ? (stored ?? startRecordOf(ctx, call, limits.keys)) : undefined;
    if (record !== undefined && record !== stored) await inOrder(() => appendCustom(ctx, TOOL_STARTED_ENTRY_TYPE, record));
    const idempotencyKey = record?.idempotencyKey;
    ctx.emit({
      type: "tool_start",
      call_id: call.toolCallId,
      tool: call.toolName,
      input: call.inputText,
      motivation: motivation || toolMotivation(ctx, call),
    });
    let reported: Record<string, unknown> | undefined;
    const started = ctx.clock.now();
    // Time spent waiting on a person is not the tool's: it is kept apart so durations stay honest.
    let waitMs = 0;
    // Whether the call was waiting on a permission ask when the run was stopped.
    let waiting = false;
    // The call's ToolContext, with its keys in their usual order (see MESSAGES_PROPERTY).
    const toolContext = (base: Omit<ToolContext, "metadata" | "ask" | "run">): ToolContext => {
      Object.defineProperty(base, SEEN, { value: seen });
      Object.defineProperty(base, "messages", MESSAGES_PROPERTY);
      const context = base as ToolContext;
      if (ctx.extra !== undefined) context.extra = ctx.extra;
      if (ctx.workspace !== undefined) context.workspace = ctx.workspace;
      if (idempotencyKey !== undefined) {
        context.idempotencyKey = idempotencyKey;
        context.checkpoint = checkpointOf(call);
      }
      context.metadata = (update) => {
        if (update.metadata !== undefined) reported = update.metadata;
        const shown = update.metadata || update.live ? { ...update.metadata, ...update.live } : undefined;
        ctx.emit({
          type: "tool_progress",
          call_id: call.toolCallId,
          tool: call.toolName,
          ...(update.title !== undefined ? { title: update.title } : {}),
          ...(shown !== undefined ? { metadata: shown } : {}),
        });
      };
      context.run = ctx.values;
      context.ask = async (request) => {
        // Only a person's answer is a wait; a rule allows or denies at once.
        let promptedAt: number | undefined;
        try {
          await ctx.permission.ask(
            { ...request, metadata: { ...request.metadata, tool: call.toolName, callId: call.toolCallId } },
            () => {
              promptedAt = ctx.clock.now();
              waiting = true;
            },
          );
        } catch (err) {
          if (isArborError(err, "permission_rejected")) rejected = true;
          throw err;
        } finally {
          if (promptedAt !== undefined) waitMs += Math.max(0, ctx.clock.now() - promptedAt);
          if (!ctx.signal.aborted) waiting = false;
        }
      };
      return context;
    };
    let outcome: ToolOutcome =
      refusal !== undefined
        ? { isError: true, code: "invalid_tool_input", output: refusal }
        : await aroundTool(ctx, { callId: call.toolCallId, tool: call.toolName, messageId }, () =>
            ctx.registry.invoke(
              call.toolName,
              call.inputText,
              toolContext({
                sessionId: ctx.sessionId,
                messageId,
                callId: call.toolCallId,
                agent: ctx.agent.name,
                cwd: ctx.cwd,
                abort: ctx.signal,
              }),
              invokeOptions,
            ),
          );
    // A person's refusal that reached the tool another way (a dismissed question) stops the run like a rejected ask.
    if (outcome.isError && outcome.code === "permission_rejected") rejected = true;
    if (ctx.signal.aborted && outcome.isError && outcome.code !== "permission_rejected" && outcome.code !== "permission_denied") {
      // Stopped on its permission ask, it never ran: "interrupted" would say it might have.
      outcome = { isError: true, code: "aborted", output: waiting ? PERMISSION_UNANSWERED_OUTPUT : INTERRUPTED_OUTPUT };
    }
    const wait = Math.round(waitMs);
    const durationMs = Math.max(0, Math.round(ctx.clock.now() - started) - wait);
    // What the tool last reported while running stays with its result; the result's own keys win.
    if (reported !== undefined) outcome = { ...outcome, metadata: { ...reported, ...outcome.metadata } };
    await persistInOrder(toolMessage(call, outcome, durationMs, wait));
    const end: Extract<RunEventInput, { type: "tool_end" }> = {
      type: "tool_end",
      call_id: call.toolCallId,
      tool: call.toolName,
      output: outcome.output,
      cached: outcome.cached ?? false,
      is_error: outcome.isError,
      duration_ms: durationMs,
    };
    if (wait > 0) end.permission_wait_ms = wait;
    ctx.emit(end);
  });
  return { rejected };
}

/**
 * The motivation of a call the model gave no text for: the call's own `description` argument when
 * it has one (bash's), else the first sentence of what the tool says it does, else its name. The
 * tool speaks for itself, so the loop keeps no table of tools.
 */
function toolMotivation(ctx: RunContext, call: StreamedToolCall): string {
  try {
    const input = JSON.parse(call.inputText) as { description?: unknown };
    if (typeof input.description === "string" && input.description.trim() !== "") return input.description.trim().slice(0, 200);
  } catch {
    // Arguments that are not JSON are refused later; the tool's purpose still says what was tried.
  }
  const described = ctx.registry
    .get(call.toolName)
    ?.description.split(/(?<=[.!?])\s|\n/)[0]
    ?.trim();
  return described ? described.slice(0, 200) : `Calling ${call.toolName}`;
}
