import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
  LanguageModelV4Prompt,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import { CACHE_HEADER } from "./cache/llm-cache.js";
import { tapStream } from "./cache/streams.js";
import { MiddlewareStack } from "./model-middleware.js";
import type { ModelUse } from "./model-wrapper.js";

/**
 * How much of each model call a run keeps for its middleware: `meta` (which model, whether the
 * cache answered), or `full` (also the whole prompt, settings and output, for debug level `full`).
 */
export type LlmCallDetail = "meta" | "full";

export interface LlmCallOutput {
  text: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; input: string }>;
}

/** One model call of a run, as its model saw it. */
export interface LlmCall {
  /** Counts the run's calls from 1. */
  readonly seq: number;
  /** `provider/model`. */
  readonly ref: string;
  readonly scenario: string | undefined;
  readonly startedAt: number;
  /** Answered from the LLM response cache. */
  cached: boolean;
  /** `full` only: this call's prompt (a copy: the loop grows its prompt array in place). */
  prompt?: LanguageModelV4Prompt;
  settings?: { temperature?: number; maxOutputTokens?: number; tools?: string[] };
  /** `full` only, once the call has finished. */
  output?: LlmCallOutput;
  finishReason?: string;
  /** The stream ended (finished, failed or cancelled). */
  done: boolean;
}

/**
 * The side channel between a run's models and its middleware:
 * the run events carry the last message cut to 2,000 characters and no prompt, so a middleware that
 * needs a call's whole input and output (DebugMiddleware at `full`) reads it here. Per run; keeps
 * only the latest calls, since a middleware reads a call between its `llm_start` and `llm_end`.
 */
export class LlmCallLog {
  private readonly calls: LlmCall[] = [];
  private count = 0;
  private readonly stack = new MiddlewareStack([this]);

  constructor(
    readonly detail: LlmCallDetail,
    private readonly now: () => number,
    private readonly keep = 16,
  ) {}

  /** Calls started so far; pass it to `since` later to get the calls made after this moment. */
  get started(): number {
    return this.count;
  }

  /** Calls started after `started` returned `mark`, oldest first (those still kept). */
  since(mark: number): LlmCall[] {
    return this.calls.filter((c) => c.seq > mark);
  }

  /** `model` reporting its calls to this log. */
  wrap(model: LanguageModelV4, use: ModelUse): LanguageModelV4 {
    return this.stack.wrap(model, use);
  }

  /** The log as AI SDK model middleware for one use of a model. */
  middleware(use: ModelUse): LanguageModelV4Middleware {
    return loggingMiddleware(use, this);
  }

  /** @internal */
  begin(use: ModelUse, options: LanguageModelV4CallOptions): LlmCall {
    const call: LlmCall = {
      seq: ++this.count,
      ref: use.ref,
      scenario: use.scenario,
      startedAt: this.now(),
      cached: false,
      done: false,
    };
    if (this.detail === "full") {
      call.prompt = [...options.prompt];
      call.settings = {
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.tools ? { tools: options.tools.map((t) => t.name) } : {}),
      };
    }
    this.calls.push(call);
    if (this.calls.length > this.keep) this.calls.splice(0, this.calls.length - this.keep);
    return call;
  }
}

/** Reports each call, its input and (at `full`) its output, to the log. */
function loggingMiddleware(use: ModelUse, log: LlmCallLog): LanguageModelV4Middleware {
  return {
    specificationVersion: "v4",
    async wrapStream({ doStream, params: options }) {
      const call = log.begin(use, options);
      let result: LanguageModelV4StreamResult;
      try {
        result = await doStream();
      } catch (err) {
        call.done = true;
        throw err;
      }
      call.cached = result.response?.headers?.[CACHE_HEADER] === "hit";
      if (log.detail !== "full") {
        call.done = true;
        return result;
      }
      const text: string[] = [];
      const reasoning: string[] = [];
      const toolCalls: LlmCallOutput["toolCalls"] = [];
      return {
        ...result,
        stream: tapStream(result.stream, {
          part(part) {
            switch (part.type) {
              case "text-delta":
                text.push(part.delta);
                break;
              case "reasoning-delta":
                reasoning.push(part.delta);
                break;
              case "tool-call":
                toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
                break;
              case "finish":
                call.finishReason = part.finishReason.unified;
                break;
              default:
                break;
            }
          },
          end() {
            call.output = { text: text.join(""), reasoning: reasoning.join(""), toolCalls };
            call.done = true;
          },
        }),
      };
    },
    async wrapGenerate({ doGenerate, params: options }) {
      const call = log.begin(use, options);
      try {
        const result = await doGenerate();
        call.cached = result.response?.headers?.[CACHE_HEADER] === "hit";
        call.finishReason = result.finishReason.unified;
        if (log.detail === "full") {
          call.output = {
            text: result.content.map((c) => (c.type === "text" ? c.text : "")).join(""),
            reasoning: result.content.map((c) => (c.type === "reasoning" ? c.text : "")).join(""),
            toolCalls: result.content.flatMap((c) =>
              c.type === "tool-call" ? [{ id: c.toolCallId, name: c.toolName, input: c.input }] : [],
            ),
          };
        }
        return result;
      } finally {
        call.done = true;
      }
    },
  };
}
