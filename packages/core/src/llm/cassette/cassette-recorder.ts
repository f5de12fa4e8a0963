import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import { partsFromGenerate } from "../cache/generate-parts.js";
import { encodePart, isRecordable, type RecordedPart, type Recording } from "../cache/recording.js";
import { describeLastMessage, replayKey } from "../cache/request-key.js";
import { tapStream } from "../cache/streams.js";
import { DelegatingModel } from "../model-wrapper.js";
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
  private readonly wrapped = new WeakMap<LanguageModelV4, Map<string, LanguageModelV4>>();

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
    let byRef = this.wrapped.get(model);
    if (!byRef) {
      byRef = new Map();
      this.wrapped.set(model, byRef);
    }
    let recording = byRef.get(ref);
    if (!recording) {
      recording = new RecordingModel(model, ref, this);
      byRef.set(ref, recording);
    }
    return recording;
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

class RecordingModel extends DelegatingModel {
  constructor(
    inner: LanguageModelV4,
    private readonly ref: string,
    private readonly recorder: CassetteRecorder,
  ) {
    super(inner);
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    // The prompt array grows in place between steps: keep this call's view of it.
    const request = { ...options, prompt: [...options.prompt] };
    const started = this.recorder.clock();
    const result = await this.inner.doStream(options);
    const parts: RecordedPart[] = [];
    let firstPart: number | undefined;
    return {
      ...result,
      stream: tapStream(result.stream, {
        part: (part) => {
          firstPart ??= this.recorder.clock();
          if (isRecordable(part)) parts.push(encodePart(part));
        },
        end: (complete) => (complete ? this.recorder.add(request, this.ref, started, firstPart ?? started, parts) : undefined),
      }),
    };
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const started = this.recorder.clock();
    const result = await this.inner.doGenerate(options);
    const parts = partsFromGenerate(result).filter(isRecordable).map(encodePart);
    await this.recorder.add(options, this.ref, started, this.recorder.clock(), parts);
    return result;
  }
}
