import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import type { ModelResolver, ResolvedModel } from "./resolved-model.js";

/** Where a model is used, as the runtime resolves it: its `provider/model` name and pool scenario. */
export interface ModelUse {
  ref: string;
  scenario?: string | undefined;
}

/**
 * Wraps each model where the runtime resolves it (the LLM cache, a cassette recorder, a run's call
 * log). Wrappers should return the same wrapper for the same model and use, so models stay
 * comparable by identity.
 */
export type ModelWrapper = (model: LanguageModelV4, use: ModelUse) => LanguageModelV4;

/**
 * The part every wrapper shares: it answers to the wrapped model's provider, id and URLs, so the
 * loop names and prices it as the model itself. Subclasses add what they do around the calls.
 */
export abstract class DelegatingModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider: string;
  readonly modelId: string;

  constructor(protected readonly inner: LanguageModelV4) {
    this.provider = inner.provider;
    this.modelId = inner.modelId;
  }

  get supportedUrls(): LanguageModelV4["supportedUrls"] {
    return this.inner.supportedUrls;
  }

  abstract doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult>;
  abstract doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult>;
}

/** `provider/model` of a model instance, as the loop names it. */
export function instanceRef(model: LanguageModelV4): string {
  return `${model.provider}/${model.modelId}`;
}

/** The wrappers applied in order: the first innermost. */
export function composeWrappers(wrappers: ReadonlyArray<ModelWrapper | undefined>): ModelWrapper | undefined {
  const present = wrappers.filter((w): w is ModelWrapper => w !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return (model, use) => present.reduce((m, wrap) => wrap(m, use), model);
}

/** A resolver whose every model is wrapped. */
export function wrapResolver(inner: ModelResolver, wrap: ModelWrapper): ModelResolver {
  const wrapped = (resolved: ResolvedModel, scenario?: string): ResolvedModel => ({
    ...resolved,
    model: wrap(resolved.model, { ref: resolved.ref, scenario }),
  });
  return {
    resolve: (ref) => wrapped(inner.resolve(ref)),
    forScenario: (scenario) => {
      const resolved = inner.forScenario(scenario);
      return resolved === undefined ? undefined : wrapped(resolved, scenario);
    },
  };
}

/** A run's model option wrapped when it is an instance (strings are wrapped when the resolver resolves them). */
export function wrapModelOption<T extends string | LanguageModelV4 | undefined>(model: T, wrap: ModelWrapper): T {
  if (model === undefined || typeof model === "string") return model;
  return wrap(model as LanguageModelV4, { ref: instanceRef(model as LanguageModelV4) }) as T;
}
