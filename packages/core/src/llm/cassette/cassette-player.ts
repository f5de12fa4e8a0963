import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import { ArborError } from "../../errors.js";
import { generateFromParts } from "../cache/generate-parts.js";
import { decodePart, type Recording } from "../cache/recording.js";
import { describeLastMessage, replayKey } from "../cache/request-key.js";
import { replayStream } from "../cache/streams.js";
import { type ModelInfo, modelInfo } from "../catalog.js";
import type { ModelResolver, ResolvedModel } from "../resolved-model.js";
import type { Cassette } from "./cassette-file.js";

export interface CassettePlayerOptions {
  /** Names the cassette in errors (its file). */
  source?: string;
  /** `recorded`: wait each call's recorded latency before its first part (a demo); `instant` (default): no waits. */
  pace?: "recorded" | "instant";
  /** Used for `recorded` pace; default real timers. Rejects when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** An AI SDK model that answers a run's calls from a cassette, in order, checking each request. */
export interface CassettePlayer extends LanguageModelV4 {
  /** Calls answered so far. */
  readonly position: number;
  readonly remaining: number;
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `provider/model` of the cassette: its `run.model`, else the first call's. */
function cassetteModel(cassette: Cassette): string {
  return cassette.run?.model ?? cassette.interactions[0]?.model ?? "cassette/replay";
}

export function cassettePlayer(cassette: Cassette, options: CassettePlayerOptions = {}): CassettePlayer {
  return new Player(cassette, options);
}

/**
 * A resolver that gives the player for every model a run asks for (the run's, compaction's, an
 * agent's), so every call of the replay comes from the cassette, except `title`, which a recorder
 * does not record (it runs beside the first step, so its place in the call order is not fixed).
 */
export function cassetteResolver(player: CassettePlayer, models: Readonly<Record<string, ModelInfo>> = {}): ModelResolver {
  const ref = `${player.provider}/${player.modelId}`;
  const resolved: ResolvedModel = { ref, model: player, info: modelInfo(ref, models) };
  return {
    resolve: () => resolved,
    forScenario: (scenario) => (scenario === "title" ? undefined : resolved),
  };
}

class Player implements CassettePlayer {
  readonly specificationVersion = "v4";
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private next = 0;
  private readonly source: string;

  constructor(
    private readonly cassette: Cassette,
    private readonly options: CassettePlayerOptions,
  ) {
    const model = cassetteModel(cassette);
    const slash = model.indexOf("/");
    this.provider = slash > 0 ? model.slice(0, slash) : model;
    this.modelId = slash > 0 ? model.slice(slash + 1) : model;
    this.source = options.source ?? "the cassette";
  }

  get position(): number {
    return this.next;
  }

  get remaining(): number {
    return Math.max(0, this.cassette.interactions.length - this.next);
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const interaction = this.take(options);
    const paced = this.options.pace === "recorded";
    return {
      stream: replayStream(interaction.parts.map(decodePart), {
        signal: options.abortSignal,
        ...(paced ? { latencyMs: interaction.latencyMs, sleep: this.options.sleep ?? realSleep } : {}),
      }),
      response: { headers: {} },
    };
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const interaction = this.take(options);
    return generateFromParts(interaction.parts.map(decodePart));
  }

  /** The next recorded call, after checking this request is the one it answered. */
  private take(options: LanguageModelV4CallOptions): Recording {
    if (options.abortSignal?.aborted) throw options.abortSignal.reason;
    const step = this.next + 1;
    const interaction = this.cassette.interactions[this.next];
    const total = this.cassette.interactions.length;
    if (!interaction) {
      throw new ArborError(
        "cassette_exhausted",
        `${this.source} holds ${total} model call${total === 1 ? "" : "s"}, and the run asked for call ${step}: the run went further than the recording. Record it again.`,
        { step, recorded: total },
      );
    }
    if (replayKey(options) !== interaction.key) {
      const expected = interaction.request ? ` The recording answered ${interaction.request.last}.` : "";
      throw new ArborError(
        "cassette_mismatch",
        `Step ${step} of ${this.source} does not match the run: the run sent ${describeLastMessage(options.prompt)}.${expected} The run diverged from the recording (a tool answered differently, or the prompt changed); record it again.`,
        { step },
      );
    }
    this.next++;
    return interaction;
  }
}
