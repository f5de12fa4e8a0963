import type { LanguageModelV4, LanguageModelV4Middleware, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MiddlewareStack } from "../model-middleware.js";
import type { ModelUse } from "../model-wrapper.js";
import { type LlmCacheStore, MemoryCacheStore } from "./cache-store.js";
import { generateFromParts, partsFromGenerate } from "./generate-parts.js";
import { decodePart, encodePart, isRecordable, type RecordedPart, type Recording } from "./recording.js";
import { cacheKey } from "./request-key.js";
import { replayStream, tapStream } from "./streams.js";

/** Response header a cached model sets on every call: `hit` (replayed from the cache) or `miss`. */
export const CACHE_HEADER = "x-arbor-cache";

/** A day: long enough to rerun a session's work, short enough that a changed model is noticed. */
export const DEFAULT_CACHE_TTL_SECONDS = 86_400;

export interface LlmCacheOptions {
  /** Default: in memory, for this process. */
  store?: LlmCacheStore;
  /** How long a response is replayed after it was recorded (default 86,400 s). */
  ttlSeconds?: number;
  now?: () => number;
  /** Told about a store that failed; the call then goes to the provider as if nothing were cached. */
  onError?: (err: unknown) => void;
}

/** `GET /api/cache/stats` for the LLM cache. Counters are since the cache was made; `clear` keeps them. */
export interface LlmCacheStats {
  store: "memory" | "file";
  ttlSeconds: number;
  hits: number;
  misses: number;
  /** Responses recorded. */
  writes: number;
  /** Recordings kept (expired ones are dropped before counting) and their size in bytes of JSON. */
  entries: number;
  bytes: number;
}

/**
 * The LLM response cache, so a repeated request costs no model call: a wrapper around AI SDK models. A call whose
 * `cacheKey` has a recording younger than the TTL is answered by replaying the recorded stream parts
 * (so the loop's streaming path runs as for a live call), marked by the `x-arbor-cache: hit` header
 * and `providerMetadata.arbor.cache = "hit"` on its finish part; any other call goes to the model
 * and, when it finishes cleanly, its parts are recorded. Off unless a runtime is given one.
 */
export class LlmCache {
  readonly store: LlmCacheStore;
  readonly ttlSeconds: number;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private readonly counts = { hits: 0, misses: 0, writes: 0 };
  /** One wrapper per model and name, so wrapping is idempotent and callers may compare models by identity. */
  private readonly stack = new MiddlewareStack([this]);

  constructor(options: LlmCacheOptions = {}) {
    const ttl = options.ttlSeconds ?? DEFAULT_CACHE_TTL_SECONDS;
    if (!Number.isFinite(ttl) || ttl <= 0)
      throw new RangeError(`The cache TTL must be a positive number of seconds, not ${ttl}.`);
    this.store = options.store ?? new MemoryCacheStore();
    this.ttlSeconds = ttl;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
  }

  /** `model` answering from the cache where it can; `ref` (`provider/model`) is the name keys use. */
  wrap(model: LanguageModelV4, ref = `${model.provider}/${model.modelId}`): LanguageModelV4 {
    return this.stack.wrap(model, { ref });
  }

  /** The cache as AI SDK model middleware for one use of a model. */
  middleware(use: ModelUse): LanguageModelV4Middleware {
    return cacheMiddleware(use.ref, this);
  }

  async stats(): Promise<LlmCacheStats> {
    await this.pruneExpired();
    const { entries, bytes } = await this.store.size();
    return { store: this.store.kind, ttlSeconds: this.ttlSeconds, ...this.counts, entries, bytes };
  }

  /** Drops every recording; returns how many there were. */
  clear(): Promise<number> {
    return this.store.clear();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** @internal The live recording for a key, counting the hit or miss. */
  async lookup(key: string): Promise<Recording | undefined> {
    let recording: Recording | undefined;
    try {
      recording = await this.store.get(key);
    } catch (err) {
      this.onError(err);
    }
    if (recording && Date.parse(recording.createdAt) < this.cutoff()) {
      recording = undefined;
      await this.pruneExpired();
    }
    if (recording) this.counts.hits++;
    else this.counts.misses++;
    return recording;
  }

  /** @internal */
  async record(key: string, model: string, parts: RecordedPart[]): Promise<void> {
    try {
      await this.store.set({ key, model, createdAt: new Date(this.now()).toISOString(), parts });
      this.counts.writes++;
    } catch (err) {
      this.onError(err);
    }
  }

  private cutoff(): number {
    return this.now() - this.ttlSeconds * 1000;
  }

  private async pruneExpired(): Promise<void> {
    try {
      await this.store.prune(this.cutoff());
    } catch (err) {
      this.onError(err);
    }
  }
}

/** Marks a replayed finish part, so whoever reads the stream can tell a hit from a live call. */
function markHit(part: LanguageModelV4StreamPart): LanguageModelV4StreamPart {
  if (part.type !== "finish") return part;
  return { ...part, providerMetadata: { ...part.providerMetadata, arbor: { cache: "hit" } } };
}

/** Answers from the cache where it can, and records what a live call streamed to the end. */
function cacheMiddleware(ref: string, cache: LlmCache): LanguageModelV4Middleware {
  return {
    specificationVersion: "v4",
    async wrapStream({ doStream, params: options }) {
      const key = cacheKey(options, ref);
      const hit = await cache.lookup(key);
      if (hit) {
        return {
          stream: replayStream(
            hit.parts.map((p) => markHit(decodePart(p))),
            { signal: options.abortSignal },
          ),
          response: { headers: { [CACHE_HEADER]: "hit" } },
        };
      }
      const result = await doStream();
      const parts: RecordedPart[] = [];
      return {
        ...result,
        stream: tapStream(result.stream, {
          part: (part) => {
            if (isRecordable(part)) parts.push(encodePart(part));
          },
          end: (complete) => (complete ? cache.record(key, ref, parts) : undefined),
        }),
        response: { ...result.response, headers: { ...result.response?.headers, [CACHE_HEADER]: "miss" } },
      };
    },
    async wrapGenerate({ doGenerate, params: options }) {
      const key = cacheKey(options, ref);
      const hit = await cache.lookup(key);
      if (hit) {
        const result = generateFromParts(hit.parts.map(decodePart));
        return {
          ...result,
          providerMetadata: { ...result.providerMetadata, arbor: { cache: "hit" } },
          response: { ...result.response, headers: { [CACHE_HEADER]: "hit" } },
        };
      }
      const result = await doGenerate();
      await cache.record(key, ref, partsFromGenerate(result).filter(isRecordable).map(encodePart));
      return { ...result, response: { ...result.response, headers: { ...result.response?.headers, [CACHE_HEADER]: "miss" } } };
    },
  };
}
