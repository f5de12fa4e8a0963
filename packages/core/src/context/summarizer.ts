import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { ArborError } from "../errors.js";
import { costOf } from "../llm/catalog.js";
import { callModel, type ModelCallEnv, SILENT_SINK } from "../llm/model-call.js";
import type { ResolvedModel } from "../llm/resolved-model.js";
import { addUsage, ZERO_USAGE } from "../llm/usage.js";
import type { Message, TokenUsage } from "../model/message.js";
import type { RunEventInput } from "../model/run-events.js";
import { usableTokens } from "./overflow.js";
import { SUMMARY_SYSTEM_PROMPT, serializeMessage } from "./summary-prompt.js";
import type { CountText } from "./tokens.js";

/** Room kept for the system prompt and the request's own wording around the conversation. */
const REQUEST_OVERHEAD_TOKENS = 1_000;
/** The longest summary asked for; a fifth of the prompt room on small models. */
export const SUMMARY_MAX_TOKENS = 8_000;

export interface SummarizerEnv extends ModelCallEnv {
  /** The model that writes summaries: the pool's `compaction` model, else the run's. */
  model: ResolvedModel;
  count: CountText;
  /** Run events for the summary calls (`llm_start` / `llm_end` with node `compaction`). */
  emit?: (event: RunEventInput) => void;
}

/**
 * The compaction agent at work: no tools, its own system prompt, one text request per call.
 * Accumulates the usage and cost of its calls so the caller can account for them.
 */
export class Summarizer {
  usage: TokenUsage = { ...ZERO_USAGE };
  cost = 0;
  /** False once a call used a model without a known price. */
  costKnown = true;
  calls = 0;
  /** Clock times of the first call's start and the last call's end: the compaction's span (calls may overlap). */
  private firstStart: number | undefined;
  private lastEnd: number | undefined;

  constructor(private readonly env: SummarizerEnv) {}

  /** Wall time from the first call's start to the last call's end; 0 before any call. */
  get durationMs(): number {
    if (this.firstStart === undefined || this.lastEnd === undefined) return 0;
    return Math.max(0, Math.round(this.lastEnd - this.firstStart));
  }

  /** `provider/model` of the summarizer. */
  get model(): string {
    return this.env.model.ref;
  }

  /** Longest output asked of the summarizer. */
  get maxOutputTokens(): number {
    const limit = this.env.model.info.limit;
    return Math.max(256, Math.min(SUMMARY_MAX_TOKENS, limit.output, Math.floor(usableTokens(limit) / 5)));
  }

  /** Tokens of conversation text one request can carry. */
  get inputBudget(): number {
    return Math.max(1_000, usableTokens(this.env.model.info.limit) - this.maxOutputTokens - REQUEST_OVERHEAD_TOKENS);
  }

  async complete(request: string, maxOutputTokens = this.maxOutputTokens): Promise<string> {
    const { env } = this;
    const callId = `compaction_${++this.calls}`;
    env.emit?.({
      type: "llm_start",
      call_id: callId,
      node: "compaction",
      model: env.model.ref,
      input: "",
      motivation: "compaction",
    });
    const options: LanguageModelV4CallOptions = {
      prompt: [
        { role: "system", content: SUMMARY_SYSTEM_PROMPT },
        { role: "user", content: [{ type: "text", text: request }] },
      ],
      maxOutputTokens,
      abortSignal: env.signal,
    };
    const started = env.clock.now();
    this.firstStart = Math.min(this.firstStart ?? started, started);
    const { stream, failure } = await callModel(env, env.model.model, options, SILENT_SINK);
    this.lastEnd = Math.max(this.lastEnd ?? 0, env.clock.now());
    if (stream.usage) {
      this.usage = addUsage(this.usage, stream.usage);
      this.cost += costOf(stream.usage, env.model.info.cost);
      if (!env.model.info.cost) this.costKnown = false;
    }
    env.emit?.({
      type: "llm_end",
      call_id: callId,
      node: "compaction",
      model: env.model.ref,
      duration_ms: Math.max(0, Math.round(env.clock.now() - started)),
      ...(stream.usage
        ? {
            input_tokens: stream.usage.input,
            output_tokens: stream.usage.output,
            total_tokens: stream.usage.input + stream.usage.output,
          }
        : {}),
      input: "",
      output: stream.text.slice(0, 1000),
    });
    if (stream.aborted) throw new ArborError("aborted", "The compaction was aborted; the session is unchanged.");
    if (failure) {
      throw new ArborError(
        "compaction_failed",
        `The compaction model ${env.model.ref} failed: ${failure.message}. The session is unchanged; retry, or set pool.compaction to another model.`,
      );
    }
    const text = stream.text.trim();
    if (text === "") {
      throw new ArborError(
        "compaction_failed",
        `The compaction model ${env.model.ref} returned no text; the session is unchanged.`,
      );
    }
    return text;
  }

  /**
   * Summarizes messages with `request(conversation, previous)`. When they do not fit one request they
   * go in chunks, oldest first, each chunk updating the summary of the ones before.
   */
  async summarize(
    messages: readonly Message[],
    request: (conversation: string, previous: string | undefined) => string,
    previous?: string,
  ): Promise<string | undefined> {
    let summary = previous;
    for (const chunk of this.chunks(messages, previous)) summary = await this.complete(request(chunk, summary));
    return summary;
  }

  private chunks(messages: readonly Message[], previous: string | undefined): string[] {
    // Each chunk leaves room for the summary it carries forward: the one given for the first chunk,
    // for later ones the longest a chunk may write.
    const first = this.inputBudget - (previous ? this.env.count(previous) : 0);
    const later = this.inputBudget - this.maxOutputTokens;
    const chunks: string[] = [];
    let current: string[] = [];
    let tokens = 0;
    for (const message of messages) {
      const text = serializeMessage(message);
      if (text === "") continue;
      const n = this.env.count(text);
      const budget = Math.max(chunks.length === 0 ? first : later, 1_000);
      if (current.length > 0 && tokens + n > budget) {
        chunks.push(current.join("\n\n"));
        current = [];
        tokens = 0;
      }
      current.push(text);
      tokens += n;
    }
    if (current.length > 0) chunks.push(current.join("\n\n"));
    return chunks;
  }
}
