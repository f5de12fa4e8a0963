import type { Config } from "../config/schema.js";
import type { StreamedToolCall } from "../llm/stream-step.js";
import type { AssistantMessage } from "../model/message.js";

type AssistantPart = AssistantMessage["content"][number];

/**
 * All the arguments of one step together: well under the store's default entry limit (8 MiB), so
 * the assistant message that carries them can always be stored.
 */
export const MAX_STEP_INPUT_BYTES = 4 * 1024 * 1024;

/** What one step's tool calls may ask for. */
export interface ToolLimits {
  /** Calls run per step; the ones past it are answered with an error and not run. */
  readonly maxCallsPerStep: number;
  /** Calls of one step running at the same time. */
  readonly concurrency: number;
  /** Bytes of one call's arguments (UTF-8). */
  readonly maxInputBytes: number;
}

export function toolLimits(config: Config): ToolLimits {
  return {
    maxCallsPerStep: config.agent.maxToolCallsPerStep,
    concurrency: config.agent.toolConcurrency,
    maxInputBytes: Math.min(config.agent.maxToolInputBytes, MAX_STEP_INPUT_BYTES),
  };
}

export interface LimitedCalls {
  /** The assistant content to store: an oversized call keeps its name and id, its arguments dropped. */
  readonly content: AssistantPart[];
  /** Every call, in order; an oversized one with the same stand-in arguments as in `content`. */
  readonly calls: StreamedToolCall[];
  /** Calls that must not run, by call id, with the error result the model reads instead. */
  readonly refusals: ReadonlyMap<string, string>;
}

/**
 * Applies the per-step limits to what the model asked for. Pure: the calls over the count, and the
 * ones whose arguments are too large (alone, or with the step's earlier ones), are refused with a
 * message naming the limit, so the model can try again within it.
 */
export function limitToolCalls(
  content: readonly AssistantPart[],
  calls: readonly StreamedToolCall[],
  limits: ToolLimits,
): LimitedCalls {
  const refusals = new Map<string, string>();
  let replaced: Map<string, string> | undefined;
  let stepBytes = 0;
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!;
    const bytes = Buffer.byteLength(call.inputText, "utf8");
    if (index >= limits.maxCallsPerStep) {
      refusals.set(
        call.toolCallId,
        `Not run: this step asked for ${calls.length} tool calls, over the limit of ${limits.maxCallsPerStep} per step (agent.maxToolCallsPerStep). Ask for fewer at a time.`,
      );
    } else if (bytes > limits.maxInputBytes) {
      refusals.set(
        call.toolCallId,
        `Not run: the arguments of this call were ${bytes} bytes, over the limit of ${limits.maxInputBytes} bytes for one call (agent.maxToolInputBytes). Send less at a time (write a large file in parts).`,
      );
    } else if (stepBytes + bytes > MAX_STEP_INPUT_BYTES) {
      refusals.set(
        call.toolCallId,
        `Not run: the arguments of this step's calls came to more than ${MAX_STEP_INPUT_BYTES} bytes together (this call: ${bytes} bytes). Send less at a time.`,
      );
    } else {
      stepBytes += bytes;
      continue;
    }
    if (bytes > 1024) {
      replaced ??= new Map();
      replaced.set(call.toolCallId, JSON.stringify({ omitted: `${bytes} bytes of arguments, not stored` }));
    }
  }
  // Nothing replaced (nearly every step): the step's own arrays, which the loop owns, not copies of them.
  if (replaced === undefined) return { content: content as AssistantPart[], calls: calls as StreamedToolCall[], refusals };
  const stands = replaced;
  return {
    content: content.map((part) => {
      const stand = part.type === "tool-call" ? stands.get(part.toolCallId) : undefined;
      return stand === undefined ? part : { ...part, input: JSON.parse(stand) as unknown };
    }),
    calls: calls.map((call) => {
      const stand = stands.get(call.toolCallId);
      return stand === undefined ? call : { ...call, inputText: stand };
    }),
    refusals,
  };
}
