import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Middleware } from "@ai-sdk/provider";
import { partsFromGenerate } from "../cache/generate-parts.js";
import { encodePart, isRecordable, type RecordedPart, type Recording } from "../cache/recording.js";
import { describeLastMessage, replayKey } from "../cache/request-key.js";
import { tapStream } from "../cache/streams.js";
import { MiddlewareStack } from "../model-middleware.js";
import type { ModelUse } from "../model-wrapper.js";
import { CASSETTE_FORMAT, CASSETTE_VERSION, type Cassette, saveCassette } from "./cassette-file.js";

export interface CassetteRecorderOptions {
  /** Written after every finished call (atomically), so an interrupted run leaves a usable prefix. */
  path?: string;
  /** What is being run, stored in the cassette's `run`. */
  run?: Cassette["run"];
  now?: () => number;
}

/**
 * Records a whole run to a cassette: wrap the run's models, run, then read `cassette` (or the file).
 * Calls are numbered in the order they finish; a run's model calls come one after another, so that
 * is the order a replay makes them in. A call that fails is not recorded: a replay never fails
 * there, so it would not make the retry that followed.
 */
export class CassetteRecorder {
  private readonly interactions: Recording[] = [];
  private readonly options: CassetteRecorderOptions;
  private readonly now: () => number;
  private readonly startedAt: number;
  private saving: Promise<void> = Promise.resolve();
  private readonly stack = new MiddlewareStack([this]);

  constructor(options: CassetteRecorderOptions = {}) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  get cassette(): Cassette {
    return {
      format: CASSETTE_FORMAT,
      version: CASSETTE_VERSION,
      recordedAt: new Date(this.startedAt).toISOString(),
      ...(this.options.run ? { run: this.options.run } : {}),
      interactions: [...this.interactions],
    };
  }

  /** `model`, recording every call that finishes; `ref` is the `provider/model` name stored with each. */
  wrap(model: LanguageModelV4, ref = `${model.provider}/${model.modelId}`): LanguageModelV4 {
    return this.stack.wrap(model, { ref });
  }

  /** The recorder as AI SDK model middleware for one use of a model. */
  middleware(use: ModelUse): LanguageModelV4Middleware {
    return recordingMiddleware(use.ref, this);
  }

  /** Resolves once the file holds every call recorded so far; rejects with the last write's failure. */
  flush(): Promise<void> {
    return this.saving;
  }

  /** @internal */
  add(
    options: LanguageModelV4CallOptions,
    model: string,
    started: number,
    firstPart: number,
    parts: RecordedPart[],
  ): Promise<void> {
    this.interactions.push({
      key: replayKey(options),
      model,
      createdAt: new Date(started).toISOString(),
      latencyMs: Math.max(0, Math.round(firstPart - started)),
      request: { messages: options.prompt.length, last: describeLastMessage(options.prompt) },
      parts,
    });
    const path = this.options.path;
    if (path === undefined) return Promise.resolve();
    const snapshot = this.cassette;
    this.saving = this.saving.catch(() => {}).then(() => saveCassette(path, snapshot));
    return this.saving;
  }

  /** @internal */
  clock(): number {
    return this.now();
  }
}

/** Records every call that finishes, in the order they finish. */
function recordingMiddleware(ref: string, recorder: CassetteRecorder): LanguageModelV4Middleware {
  return {
    specificationVersion: "v4",
    async wrapStream({ doStream, params: options }) {
      // The prompt array grows in place between steps: keep this call's view of it.
      const request = { ...options, prompt: [...options.prompt] };
      const started = recorder.clock();
      const result = await doStream();
      const parts: RecordedPart[] = [];
      let firstPart: number | undefined;
      return {
        ...result,
        stream: tapStream(result.stream, {
          part: (part) => {
            firstPart ??= recorder.clock();
            if (isRecordable(part)) parts.push(encodePart(part));
          },
          end: (complete) => (complete ? recorder.add(request, ref, started, firstPart ?? started, parts) : undefined),
        }),
      };
    },
    async wrapGenerate({ doGenerate, params: options }) {
      const started = recorder.clock();
      const result = await doGenerate();
      const parts = partsFromGenerate(result).filter(isRecordable).map(encodePart);
      await recorder.add(options, ref, started, recorder.clock(), parts);
      return result;
    },
  };
}
