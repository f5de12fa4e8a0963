import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { Span, Tracer } from "@opentelemetry/api";
import { DelegatingModel, type ModelUse } from "../llm/model-wrapper.js";
import { otelApi } from "./otel-api.js";
import { type SpanScopes, startSpanIn } from "./span-scopes.js";

function usageAttributes(usage: LanguageModelV4Usage): Record<string, number> {
  return {
    ...(usage.inputTokens.total !== undefined ? { "gen_ai.usage.input_tokens": usage.inputTokens.total } : {}),
    ...(usage.outputTokens.total !== undefined ? { "gen_ai.usage.output_tokens": usage.outputTokens.total } : {}),
  };
}

function fail(span: Span, err: unknown): void {
  span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  span.setAttribute("error.type", err instanceof Error ? err.name : "error");
  span.end();
}

/**
 * A model whose every call is a GenAI `chat` span under the run's current span: model and provider,
 * token usage and finish reason; the prompt and the answer only when content capture is on.
 */
export class ChatSpanModel extends DelegatingModel {
  constructor(
    inner: LanguageModelV4,
    private readonly tracer: Tracer,
    private readonly scopes: SpanScopes,
    private readonly use: ModelUse,
    private readonly captureContent: boolean,
  ) {
    super(inner);
  }

  private start(options: LanguageModelV4CallOptions): Span {
    const parent = { context: this.scopes.parent(), sessionId: this.scopes.current()?.sessionId };
    const { span } = startSpanIn(this.tracer, parent, { operation: "chat", target: this.modelId }, "CLIENT", {
      "gen_ai.provider.name": this.provider,
      "gen_ai.request.model": this.modelId,
      ...(this.use.scenario ? { "arbor.scenario": this.use.scenario } : {}),
      ...(options.maxOutputTokens !== undefined ? { "gen_ai.request.max_tokens": options.maxOutputTokens } : {}),
      ...(options.temperature !== undefined ? { "gen_ai.request.temperature": options.temperature } : {}),
      ...(this.captureContent ? { "gen_ai.input.messages": JSON.stringify(options.prompt) } : {}),
    });
    return span;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const span = this.start(options);
    try {
      const result = await this.inner.doGenerate(options);
      span.setAttributes({
        ...usageAttributes(result.usage),
        "gen_ai.response.finish_reasons": [result.finishReason.unified],
        ...(result.response?.id ? { "gen_ai.response.id": result.response.id } : {}),
        ...(this.captureContent ? { "gen_ai.output.messages": JSON.stringify(result.content) } : {}),
      });
      span.end();
      return result;
    } catch (err) {
      fail(span, err);
      throw err;
    }
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const span = this.start(options);
    let result: LanguageModelV4StreamResult;
    try {
      result = await this.inner.doStream(options);
    } catch (err) {
      fail(span, err);
      throw err;
    }
    const output: string[] = [];
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (this.captureContent)
        span.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", text: output.join("") }]));
      span.end();
    };
    const capture = this.captureContent;
    const stream = result.stream.pipeThrough(
      new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type === "finish") {
            span.setAttributes({ ...usageAttributes(part.usage), "gen_ai.response.finish_reasons": [part.finishReason.unified] });
          } else if (part.type === "response-metadata" && part.id) {
            span.setAttribute("gen_ai.response.id", part.id);
          } else if (part.type === "error") {
            span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: String(part.error) });
          } else if (capture && part.type === "text-delta") {
            output.push(part.delta);
          }
          controller.enqueue(part);
        },
        flush: end,
        // A reader that gives up (an abort, an idle timeout) still closes the span.
        cancel: end,
      }),
    );
    return { ...result, stream };
  }
}
