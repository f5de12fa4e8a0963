import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import { DelegatingModel, type ModelUse } from "./model-wrapper.js";

/** What adds behaviour around model calls (the LLM cache, a cassette recorder, a run's call log), per use. */
export interface ModelMiddlewareSource {
  middleware(use: ModelUse): LanguageModelV4Middleware;
}

/** One AI SDK middleware around one model: it answers to the model's provider, id and URLs. */
class MiddlewareModel extends DelegatingModel {
  constructor(
    inner: LanguageModelV4,
    private readonly middleware: LanguageModelV4Middleware,
  ) {
    super(inner);
  }

  private async params(type: "generate" | "stream", params: LanguageModelV4CallOptions): Promise<LanguageModelV4CallOptions> {
    return this.middleware.transformParams ? this.middleware.transformParams({ type, params, model: this.inner }) : params;
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const params = await this.params("stream", options);
    const inner = this.inner;
    const doStream = () => inner.doStream(params);
    if (!this.middleware.wrapStream) return doStream();
    return this.middleware.wrapStream({ doGenerate: () => inner.doGenerate(params), doStream, params, model: inner });
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const params = await this.params("generate", options);
    const inner = this.inner;
    const doGenerate = () => inner.doGenerate(params);
    if (!this.middleware.wrapGenerate) return doGenerate();
    return this.middleware.wrapGenerate({ doGenerate, doStream: () => inner.doStream(params), params, model: inner });
  }
}

/**
 * The one place model middleware is composed: `wrap(model, use)` puts every source's middleware
 * around the model, the first innermost. The same model and use give the same instance, so models
 * stay comparable by identity however often they are resolved.
 */
export class MiddlewareStack {
  private readonly memo = new WeakMap<LanguageModelV4, Map<string, LanguageModelV4>>();

  constructor(private readonly sources: readonly ModelMiddlewareSource[]) {}

  wrap(model: LanguageModelV4, use: ModelUse): LanguageModelV4 {
    const key = `${use.ref}\u0000${use.scenario ?? ""}`;
    let byUse = this.memo.get(model);
    if (!byUse) {
      byUse = new Map();
      this.memo.set(model, byUse);
    }
    let wrapped = byUse.get(key);
    if (!wrapped) {
      wrapped = this.sources.reduce<LanguageModelV4>((m, source) => new MiddlewareModel(m, source.middleware(use)), model);
      byUse.set(key, wrapped);
    }
    return wrapped;
  }
}
