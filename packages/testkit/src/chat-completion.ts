import type { PlannedUsage, StepPlan } from "./plan.js";

/**
 * OpenAI Chat Completions wire objects, shaped field for field like the real API's so that the official client
 * and the AI SDK's openai-compatible provider parse them exactly as they parse OpenAI's.
 */

/** Identity shared by every chunk of one response. */
export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

const SYSTEM_FINGERPRINT = "fp_arbor_testkit";

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

export function wireUsage(usage: PlannedUsage): ChatCompletionUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export type ChunkDelta = Record<string, unknown>;

function chunkHeader(identity: ResponseIdentity) {
  return {
    id: identity.id,
    object: "chat.completion.chunk",
    created: identity.created,
    model: identity.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/**
 * One `chat.completion.chunk`. With `stream_options.include_usage`, OpenAI puts `"usage": null` on every chunk
 * and the totals on one extra chunk at the end, so the field's presence follows that option.
 */
export function chunk(identity: ResponseIdentity, includeUsage: boolean, delta: ChunkDelta, finishReason: string | null = null) {
  return {
    ...chunkHeader(identity),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The extra chunk `include_usage` asks for: no choices, the totals. */
export function usageChunk(identity: ResponseIdentity, usage: PlannedUsage) {
  return {
    ...chunkHeader(identity),
    choices: [],
    usage: wireUsage(usage),
  };
}

/** First delta of a streamed tool call: index, id, type and name, arguments empty; fragments follow by index. */
export function toolCallStartDelta(index: number, id: string, name: string): ChunkDelta {
  return { tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] };
}

export function toolCallArgumentsDelta(index: number, fragment: string): ChunkDelta {
  return { tool_calls: [{ index, function: { arguments: fragment } }] };
}

/** A whole `chat.completion` for a non-streaming request; text, reasoning and tool calls gathered from the plan. */
export function completion(identity: ResponseIdentity, plan: StepPlan) {
  let content = "";
  let reasoning = "";
  let hasText = false;
  const toolCalls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> = [];
  for (const op of plan.ops) {
    if (op.kind === "text") {
      hasText = true;
      content += op.deltas.join("");
    } else if (op.kind === "reasoning") reasoning += op.deltas.join("");
    else if (op.kind === "tool-call")
      toolCalls.push({ id: op.id, type: "function", function: { name: op.name, arguments: op.inputText } });
  }
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: hasText ? content : null,
          refusal: null,
          annotations: [],
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: plan.rawFinishReason,
      },
    ],
    usage: wireUsage(plan.usage),
    service_tier: "default",
  };
}

/** `GET /v1/models`. */
export function modelList(ids: readonly string[], created: number) {
  return { object: "list", data: ids.map((id) => ({ id, object: "model", created, owned_by: "arbor-testkit" })) };
}
