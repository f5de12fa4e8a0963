import { AsyncLocalStorage } from "node:async_hooks";
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { TraceContextFields } from "../loop/extension.js";
import { otelApi } from "./otel-api.js";

/** What a span started inside a run knows of it: the context to parent under and the session it serves. */
export interface SpanScope {
  readonly context: Context;
  readonly sessionId: string;
}

/**
 * Where spans of the same run find their parent. A store of its own per telemetry, rather than the
 * global context manager, so nesting holds whether or not the host registered one.
 */
export class SpanScopes {
  private readonly als = new AsyncLocalStorage<SpanScope>();
  current(): SpanScope | undefined {
    return this.als.getStore();
  }
  parent(): Context {
    return this.als.getStore()?.context ?? otelApi().context.active();
  }
  within<T>(scope: SpanScope, work: () => T): T {
    return this.als.run(scope, work);
  }
}

/**
 * Starts a span under `parent`'s context, for its session (`gen_ai.conversation.id`); a GenAI
 * operation's (`chat`, `invoke_agent`, `execute_tool`) is named `<operation> <target>` and carries
 * `gen_ai.operation.name`, as the conventions name them. Returns the span and the scope it opens:
 * spans started within that scope nest under it.
 */
export function startSpanIn<S extends string | undefined>(
  tracer: Tracer,
  parent: { context: Context; sessionId: S },
  name: string | { operation: string; target: string },
  kind: "CLIENT" | "INTERNAL",
  attributes: Attributes = {},
): { span: Span; scope: { context: Context; sessionId: S } } {
  const span = tracer.startSpan(
    typeof name === "string" ? name : `${name.operation} ${name.target}`,
    {
      kind: otelApi().SpanKind[kind],
      attributes: {
        ...(typeof name === "string" ? {} : { "gen_ai.operation.name": name.operation }),
        ...(parent.sessionId === undefined ? {} : { "gen_ai.conversation.id": parent.sessionId }),
        ...attributes,
      },
    },
    parent.context,
  );
  return { span, scope: { context: otelApi().trace.setSpan(parent.context, span), sessionId: parent.sessionId } };
}

/**
 * The W3C trace context (version 00) of the span in `context`; undefined when it has none or an
 * invalid one (the API's no-op span), so nothing meaningless is sent on.
 */
export function traceContextOf(context: Context): TraceContextFields | undefined {
  const api = otelApi();
  const span = api.trace.getSpanContext(context);
  if (!span || !api.isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, "0");
  const state = span.traceState?.serialize();
  return { traceparent: `00-${span.traceId}-${span.spanId}-${flags}`, ...(state ? { tracestate: state } : {}) };
}
