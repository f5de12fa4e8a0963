import {
  JSONParseError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  type LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { abortError, throwIfAborted, waitForAbort } from "./abort.js";
import { type Clock, realClock } from "./clock.js";
import { ScriptExhaustedError, toAPICallError } from "./errors.js";
import { type PlannedUsage, type PlanOp, planStep, type StepPlan } from "./plan.js";
import type { Script } from "./script.js";

export interface ScriptedModelOptions {
  /** Default `scripted`. */
  modelId?: string;
  /** Default `testkit`. */
  provider?: string;
  /** Drives `delay` actions; default real timers. Pass `manualClock()` to advance time by hand. */
  clock?: Clock;
  /** Record every call's options (default true). Benchmarks may turn it off. */
  record?: boolean;
}

/** One call as the model received it. */
export interface RecordedCall {
  index: number;
  method: "stream" | "generate";
  /** The prompt array is copied (not its messages), so a caller that appends to one array keeps each call's view. */
  prompt: LanguageModelV4Prompt;
  options: LanguageModelV4CallOptions;
}

/** An AI SDK language model (provider spec v4) whose successive calls play successive scripted steps. */
export interface ScriptedModel extends LanguageModelV4 {
  readonly calls: readonly RecordedCall[];
  /** Calls made so far, including any that failed. */
  readonly callCount: number;
  /** Steps not yet played. */
  readonly remaining: number;
}

export function scriptedModel(script: Script, options: ScriptedModelOptions = {}): ScriptedModel {
  return new ScriptedLanguageModel(script, options);
}

class ScriptedLanguageModel implements ScriptedModel {
  readonly specificationVersion = "v4";
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly calls: RecordedCall[] = [];
  readonly #script: Script;
  readonly #clock: Clock;
  readonly #record: boolean;
  #next = 0;

  constructor(script: Script, options: ScriptedModelOptions) {
    this.#script = script;
    this.modelId = options.modelId ?? "scripted";
    this.provider = options.provider ?? "testkit";
    this.#clock = options.clock ?? realClock;
    this.#record = options.record ?? true;
  }

  get callCount(): number {
    return this.#next;
  }

  get remaining(): number {
    return Math.max(0, this.#script.length - this.#next);
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { plan, index } = this.#begin("stream", options);
    const signal = options.abortSignal;
    await this.#callPhase(plan, signal);
    return { stream: this.#stream(plan, index, signal), response: { headers: {} } };
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { plan, index } = this.#begin("generate", options);
    const signal = options.abortSignal;
    await this.#callPhase(plan, signal);
    const content: LanguageModelV4Content[] = [];
    for (let i = plan.callPhaseEnd; i < plan.ops.length; i++) {
      const op = plan.ops[i]!;
      switch (op.kind) {
        case "text":
        case "reasoning":
          content.push({ type: op.kind, text: op.deltas.join("") });
          break;
        case "tool-call":
          content.push({ type: "tool-call", toolCallId: op.id, toolName: op.name, input: op.inputText });
          break;
        case "delay":
          await this.#clock.sleep(op.ms, signal);
          break;
        case "hang":
          await waitForAbort(signal);
          break;
        case "error":
          throw toAPICallError(op.error, this.#url, undefined);
        case "malformed":
          throw malformedError(op.raw);
      }
    }
    return {
      content,
      finishReason: { unified: plan.finishReason, raw: plan.rawFinishReason },
      usage: toV4Usage(plan.usage),
      warnings: [],
      response: { id: `scripted-${index}`, modelId: this.modelId, timestamp: new Date(this.#clock.now()) },
    };
  }

  get #url(): string {
    return `scripted:${this.provider}/${this.modelId}`;
  }

  /** Claims the next step; an aborted signal claims nothing, as an aborted fetch sends nothing. */
  #begin(method: RecordedCall["method"], options: LanguageModelV4CallOptions): { plan: StepPlan; index: number } {
    throwIfAborted(options.abortSignal);
    const index = this.#next++;
    if (this.#record) this.calls.push({ index, method, prompt: [...options.prompt], options: { ...options } });
    const step = this.#script[index];
    if (step === undefined) throw new ScriptExhaustedError(`scripted model ${this.modelId}`, index, this.#script.length);
    return { plan: planStep(step, { source: "model", index, options }), index };
  }

  /** What happens before a real provider would answer: latency, a hang waiting for headers, an error status. */
  async #callPhase(plan: StepPlan, signal: AbortSignal | undefined): Promise<void> {
    for (let i = 0; i < plan.callPhaseEnd; i++) {
      const op = plan.ops[i]!;
      if (op.kind === "delay") await this.#clock.sleep(op.ms, signal);
      else if (op.kind === "hang") await waitForAbort(signal);
      else if (op.kind === "error") throw toAPICallError(op.error, this.#url, undefined);
    }
  }

  /**
   * Parts are produced on demand, at most QUEUE ahead of the reader: Node's stream queue dequeues with
   * Array#shift, so enqueuing a whole long step up front would cost time quadratic in its deltas. No timers run
   * unless the step waits, and waits listen to the caller's signal and to cancel() without leaving listeners.
   */
  #stream(plan: StepPlan, index: number, signal: AbortSignal | undefined): ReadableStream<LanguageModelV4StreamPart> {
    const clock = this.#clock;
    const url = this.#url;
    const metadata: LanguageModelV4StreamPart = {
      type: "response-metadata",
      id: `scripted-${index}`,
      modelId: this.modelId,
      timestamp: new Date(clock.now()),
    };
    const emissions = emit(plan, metadata, url);
    let held: Emission | undefined;
    let waits: AbortController | undefined;
    // Links the caller's signal and cancel() into one, made only for steps that actually wait.
    const waitSignal = (): AbortSignal => {
      if (!waits) {
        const link = new AbortController();
        waits = link;
        if (signal?.aborted) link.abort(signal.reason);
        else signal?.addEventListener("abort", () => link.abort(signal.reason), { once: true, signal: link.signal });
      }
      return waits.signal;
    };
    const release = () => waits?.abort();

    return new ReadableStream<LanguageModelV4StreamPart>(
      {
        async pull(controller) {
          try {
            while ((controller.desiredSize ?? 0) > 0) {
              throwIfAborted(signal);
              let item = held;
              held = undefined;
              if (item === undefined) {
                const next = emissions.next();
                if (next.done) {
                  controller.close();
                  release();
                  return;
                }
                item = next.value;
              }
              if (!(item instanceof Control)) controller.enqueue(item);
              else if (item.op.kind === "delay") await clock.sleep(item.op.ms, waitSignal());
              else if (item.op.kind === "hang") await waitForAbort(waitSignal());
              else if (controller.desiredSize !== QUEUE) {
                // Erroring a stream discards the parts still queued: let the reader take them first (every
                // read pulls again, so this comes back once the queue is empty).
                held = item;
                return;
              } else throw toAPICallError(item.op.error, url, undefined);
            }
          } catch (error) {
            release();
            // A wait ended by the caller's abort reports the caller's reason, as fetch does.
            throw signal?.aborted ? abortError(signal) : error;
          }
        },
        cancel() {
          release();
        },
      },
      { highWaterMark: QUEUE },
    );
  }
}

/**
 * How many parts the stream produces ahead of its reader: a few, as a provider's parsing stream holds.
 * Each read shifts the whole queue along (Array#shift), so a deep one made every part the runtime
 * reads cost the model more than it would from a provider (64 added ~0.15 µs a part).
 */
const QUEUE = 4;

/** Something the stream must do before its next part: wait, or break. A class, so no part can look like one. */
class Control {
  constructor(readonly op: Extract<PlanOp, { kind: "delay" | "hang" | "error" }>) {}
}

type Emission = LanguageModelV4StreamPart | Control;

/** The step's stream in order; text/reasoning block ids are numbered by output op so they are unique. */
function* emit(plan: StepPlan, metadata: LanguageModelV4StreamPart, url: string): Generator<Emission> {
  const finish: LanguageModelV4StreamPart = {
    type: "finish",
    finishReason: { unified: plan.finishReason, raw: plan.rawFinishReason },
    usage: toV4Usage(plan.usage),
  };
  yield { type: "stream-start", warnings: [] };
  yield metadata;
  let block = 0;
  for (let i = plan.callPhaseEnd; i < plan.ops.length; i++) {
    const op = plan.ops[i]!;
    switch (op.kind) {
      case "delay":
      case "hang":
        yield new Control(op);
        break;
      case "text":
      case "reasoning": {
        const id = `${op.kind}-${block++}`;
        yield { type: `${op.kind}-start`, id };
        for (const delta of op.deltas) yield { type: `${op.kind}-delta`, id, delta };
        yield { type: `${op.kind}-end`, id };
        break;
      }
      case "tool-call":
        block++;
        yield { type: "tool-input-start", id: op.id, toolName: op.name };
        for (const delta of op.deltas) yield { type: "tool-input-delta", id: op.id, delta };
        yield { type: "tool-input-end", id: op.id };
        yield { type: "tool-call", toolCallId: op.id, toolName: op.name, input: op.inputText };
        break;
      case "error":
        if (op.error.at !== "part") {
          yield new Control(op);
          return;
        }
        // A reported error ends the response, as it does over HTTP: only the finish follows.
        yield { type: "error", error: toAPICallError(op.error, url, undefined) };
        yield finish;
        return;
      case "malformed":
        // What an AI SDK provider emits for an undecodable chunk: an error part; the response ends there.
        yield { type: "error", error: malformedError(op.raw) };
        yield finish;
        return;
    }
  }
  yield finish;
}

function malformedError(raw: string): JSONParseError {
  let cause: unknown;
  try {
    JSON.parse(raw);
    cause = new SyntaxError("scripted malformed output");
  } catch (error) {
    cause = error;
  }
  return new JSONParseError({ text: raw, cause });
}

function toV4Usage(usage: PlannedUsage): LanguageModelV4Usage {
  return {
    inputTokens: {
      total: usage.inputTokens,
      noCache: usage.inputTokens - usage.cacheReadTokens,
      cacheRead: usage.cacheReadTokens,
      cacheWrite: usage.cacheWriteTokens,
    },
    outputTokens: {
      total: usage.outputTokens,
      text: usage.outputTokens - usage.reasoningTokens,
      reasoning: usage.reasoningTokens,
    },
  };
}
