import type { ReadableStreamDefaultReader, ReadableStreamReadResult } from "node:stream/web";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { AssistantMessage, TokenUsage } from "../model/message.js";

type AssistantPart = AssistantMessage["content"][number];

/** A call the model asked for, with its raw argument text (which may not be valid JSON). */
export interface StreamedToolCall {
  toolCallId: string;
  toolName: string;
  inputText: string;
}

export interface StepStreamResult {
  /** The assistant content in the order the model produced it; partial when the step did not finish. */
  content: AssistantPart[];
  toolCalls: StreamedToolCall[];
  /** The concatenated text parts. */
  text: string;
  usage: TokenUsage | undefined;
  finishReason: string | undefined;
  /** Set when the provider failed (at call time or mid-stream); `content` holds what arrived before. */
  error: unknown;
  aborted: boolean;
  /** True once any text, reasoning or tool call arrived: a retry would repeat visible output. */
  produced: boolean;
}

export interface StepSink {
  text(delta: string): void;
  reasoning(delta: string): void;
}

type ProviderMetadata = Record<string, unknown>;

/** Open text or reasoning block: deltas are collected and joined once, so a step is linear in its length. */
class Slot {
  readonly chunks: string[] = [];
  providerMetadata: ProviderMetadata | undefined;

  constructor(
    readonly kind: "text" | "reasoning",
    readonly id: string,
  ) {}

  /**
   * Providers hand out what they need back on later turns (a thinking block's signature, an encrypted
   * reasoning item, an item id) on any part of a block, often on one with no text: merge it all.
   */
  keep(metadata: unknown): void {
    if (metadata === undefined || metadata === null) return;
    this.providerMetadata = mergeMetadata(this.providerMetadata, metadata as ProviderMetadata);
  }
}

/** Provider-keyed metadata merged per provider, later fields winning. */
function mergeMetadata(into: ProviderMetadata | undefined, from: ProviderMetadata): ProviderMetadata {
  const merged: ProviderMetadata = { ...into };
  for (const [provider, fields] of Object.entries(from)) {
    const earlier = merged[provider];
    merged[provider] =
      typeof earlier === "object" && earlier !== null && typeof fields === "object" && fields !== null
        ? { ...earlier, ...fields }
        : fields;
  }
  return merged;
}

/** The provider's usage as Arbor counts it (missing counts are 0). */
export function toUsage(u: LanguageModelV4Usage): TokenUsage {
  return {
    input: u.inputTokens.total ?? 0,
    output: u.outputTokens.total ?? 0,
    reasoning: u.outputTokens.reasoning ?? 0,
    cacheRead: u.inputTokens.cacheRead ?? 0,
    cacheWrite: u.inputTokens.cacheWrite ?? 0,
  };
}

/** A stream that sent nothing for too long: coded like a socket timeout, so it is retried as one. */
export class StreamIdleError extends Error {
  readonly code = "ETIMEDOUT";

  constructor(readonly idleMs: number) {
    super(`The provider's stream sent nothing for ${idleMs} ms (llm.streamIdleTimeoutMs) and was ended`);
    this.name = "StreamIdleError";
  }
}

/**
 * Reads a stream's parts, failing with a StreamIdleError once `idleMs` pass without one (no limit
 * when not positive). One timer serves the whole stream; each part only notes the time it was asked
 * for, and when the timer fires early (parts came meanwhile) it is set again for the rest of the
 * wait. When the wait is over it cancels the stream, which ends the read waiting on it, and `ended`
 * reports the error instead of the end. A race of each read against one long-lived idle promise
 * cost a promise and a reaction per part, and left every reaction attached to that promise until
 * the stream ended: 50,000 deltas kept 50,000 of them alive, and the collector spent its time on
 * them. Re-arming the timer on every part moved it in the timer list each time (~3 µs of a step's
 * CPU for eleven parts); reading the clock is a small part of that.
 */
class IdleReader<T> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private idled: StreamIdleError | undefined;
  /** When the latest part was asked for (`performance.now()`). */
  private last = 0;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<T>,
    private readonly idleMs: number,
  ) {
    if (!(idleMs > 0) || !Number.isFinite(idleMs)) return;
    this.last = performance.now();
    this.arm(idleMs);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      const quiet = performance.now() - this.last;
      if (quiet < this.idleMs) {
        this.arm(this.idleMs - quiet);
        return;
      }
      this.idled = new StreamIdleError(this.idleMs);
      // Resolves a pending read as done (the stream is closed before its source is told).
      this.reader.cancel(this.idled).catch(() => {});
    }, ms);
  }

  /** The next part; a stream cancelled because it idled reads as done, and `ended` then throws. */
  read(): Promise<ReadableStreamReadResult<T>> {
    if (this.timer !== undefined) this.last = performance.now();
    return this.reader.read();
  }

  /** Called at the stream's end: throws the StreamIdleError if the end was the idle timer's. */
  ended(): void {
    if (this.idled) throw this.idled;
  }

  stop(): void {
    clearTimeout(this.timer);
    // A timer that fired and was set again must not be set once more after the stream is over.
    this.timer = undefined;
  }
}

/** Which kind of block a text or reasoning part belongs to: `text-delta` → `text`. */
function blockKind(type: `${Slot["kind"]}-${"start" | "delta" | "end"}`): Slot["kind"] {
  return type.startsWith("text-") ? "text" : "reasoning";
}

/** Parsed arguments for storage and replay; text that is not a JSON object is kept as text. */
export function parseToolInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Streams one model call straight from the provider's `doStream` parts (no per-delta
 * result-stream machinery: it would cost more than the step's own work on a fast model) and turns it into assistant content. Never throws: a provider failure
 * or an abort comes back in the result with whatever content had arrived. A stream silent for
 * `idleTimeoutMs` between parts fails with a StreamIdleError (its body is cancelled).
 */
export async function streamStep(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  sink: StepSink,
  idleTimeoutMs = 0,
): Promise<StepStreamResult> {
  const order: Array<Slot | AssistantPart> = [];
  // Blocks started and not yet ended: a step has a few, so a list is searched (no map, no key strings).
  const open: Slot[] = [];
  const openIndex = (kind: Slot["kind"], id: string): number => {
    for (let i = 0; i < open.length; i++) if (open[i]!.id === id && open[i]!.kind === kind) return i;
    return -1;
  };
  const toolCalls: StreamedToolCall[] = [];
  let usage: TokenUsage | undefined;
  let finishReason: string | undefined;
  let error: unknown;
  let produced = false;
  const signal = options.abortSignal;

  // The block the last delta went to: a block's deltas come in a row, so most find it here without a lookup.
  let recent: Slot | undefined;
  const slot = (kind: Slot["kind"], id: string): Slot => {
    if (recent !== undefined && recent.id === id && recent.kind === kind) return recent;
    const at = openIndex(kind, id);
    let s = at === -1 ? undefined : open[at];
    if (!s) {
      s = new Slot(kind, id);
      open.push(s);
      order.push(s);
    }
    recent = s;
    return s;
  };

  try {
    const { stream } = await model.doStream(options);
    const reader = stream.getReader();
    /** The stream was read to its end: nothing is left to cancel. */
    let drained = false;
    const parts = new IdleReader(reader, idleTimeoutMs);
    try {
      for (;;) {
        const { value, done } = await parts.read();
        if (done) {
          drained = true;
          parts.ended();
          break;
        }
        const part = value as LanguageModelV4StreamPart;
        switch (part.type) {
          // Text and reasoning blocks stream alike; only the sink each delta goes to differs.
          case "text-start":
          case "reasoning-start":
            slot(blockKind(part.type), part.id).keep(part.providerMetadata);
            break;
          case "text-delta":
          case "reasoning-delta": {
            const kind = part.type === "text-delta" ? "text" : "reasoning";
            const s = slot(kind, part.id);
            s.keep(part.providerMetadata);
            if (part.delta === "") break;
            produced = true;
            s.chunks.push(part.delta);
            sink[kind](part.delta);
            break;
          }
          case "text-end":
          case "reasoning-end": {
            const at = openIndex(blockKind(part.type), part.id);
            if (at !== -1) {
              open[at]!.keep(part.providerMetadata);
              open.splice(at, 1);
            }
            // A block reopened under the same id is a new block.
            recent = undefined;
            break;
          }
          case "tool-call": {
            if (part.providerExecuted) break;
            produced = true;
            const inputText = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {});
            toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, inputText });
            const call: Extract<AssistantPart, { type: "tool-call" }> = {
              type: "tool-call",
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input: parseToolInput(inputText),
            };
            if (part.providerMetadata) call.providerMetadata = part.providerMetadata as ProviderMetadata;
            order.push(call);
            break;
          }
          case "file": {
            produced = true;
            const data = part.data;
            if (data.type === "data") {
              const base64 = typeof data.data === "string" ? data.data : Buffer.from(data.data).toString("base64");
              order.push({ type: "file", mediaType: part.mediaType, data: base64 });
            } else if (data.type === "url") {
              order.push({ type: "file", mediaType: part.mediaType, url: data.url.toString() });
            }
            break;
          }
          case "finish":
            usage = toUsage(part.usage);
            finishReason = part.finishReason.unified;
            break;
          case "error":
            error = part.error;
            break;
          default:
            // stream-start, response-metadata, sources, provider-executed results, raw chunks, pings:
            // nothing the loop stores or shows.
            break;
        }
        if (error !== undefined) break;
      }
    } finally {
      parts.stop();
      // Cancelling the reader ends the provider's body when we stop early (an error part, an abort);
      // a stream read to its end is closed already.
      if (!drained) reader.cancel().catch(() => {});
    }
  } catch (err) {
    if (!signal?.aborted) error = err;
  }

  const content: AssistantPart[] = [];
  // Most steps say one text block in one or a few deltas: it is taken as it is, not joined anew.
  let text = "";
  for (const item of order) {
    if (item instanceof Slot) {
      // A block with neither text nor metadata carries nothing; one with only metadata (encrypted or
      // redacted reasoning, a signature) is what the provider expects back, so it is kept.
      if (item.chunks.length === 0 && item.providerMetadata === undefined) continue;
      const blockText = item.chunks.length === 1 ? item.chunks[0]! : item.chunks.join("");
      const { providerMetadata } = item;
      if (item.kind === "text") {
        text = text === "" ? blockText : `${text}${blockText}`;
        content.push(providerMetadata ? { type: "text", text: blockText, providerMetadata } : { type: "text", text: blockText });
      } else {
        content.push(
          providerMetadata ? { type: "reasoning", text: blockText, providerMetadata } : { type: "reasoning", text: blockText },
        );
      }
    } else {
      content.push(item);
    }
  }
  const aborted = signal?.aborted === true;
  return { content, toolCalls, text, usage, finishReason, error: aborted ? undefined : error, aborted, produced };
}
