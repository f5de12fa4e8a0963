import type { Span, Tracer } from "@opentelemetry/api";
import type { RunLaunch, RunObserver, StepsOutcome } from "../loop/extension.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
import { ChatSpanModel } from "./chat-span.js";
import { otelApi } from "./otel-api.js";
import { type SpanScope, SpanScopes, startSpanIn, traceContextOf } from "./span-scopes.js";

export interface GenAiTelemetryOptions {
  /** Put prompts and answers on `chat` spans (`gen_ai.input.messages`, `gen_ai.output.messages`). Default off: they may hold secrets. */
  captureContent?: boolean;
}

function endWith(span: Span, outcome: { status: string; error?: { code: string; message: string } | undefined }): void {
  if (outcome.status !== "done") {
    span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: outcome.error?.message ?? outcome.status });
    span.setAttribute("error.type", outcome.error?.code ?? outcome.status);
  }
  span.end();
}

/** Runs `body` in `span`'s scope; a throw ends the span as an exception, and is thrown on. */
async function inSpan<T>(scopes: SpanScopes, scope: SpanScope, span: Span, body: () => Promise<T>): Promise<T> {
  try {
    return await scopes.within(scope, body);
  } catch (err) {
    endWith(span, { status: "error", error: { code: "exception", message: String(err) } });
    throw err;
  }
}

/**
 * Traces runs as the OpenTelemetry GenAI conventions describe agents: an `invoke_agent` span per run
 * and sub-run (under the tool span that started it, so parallel branches are siblings), `chat` per
 * model call, `execute_tool` per tool call and a `plan_mode` span around a run in plan mode. The
 * session id is `gen_ai.conversation.id`; written entries are span events carrying their ids, so a
 * trace leads back to the session's entries.
 */
export function genAiTelemetry(tracer: Tracer, options: GenAiTelemetryOptions = {}): RunObserver {
  const scopes = new SpanScopes();
  const models = new WeakMap<object, Map<string, ChatSpanModel>>();
  return {
    extension: (launch) => runSpans(tracer, scopes, launch),
    // This telemetry's own store of spans, not the global context: a tool's call finds its span here.
    traceContext: () => traceContextOf(scopes.parent()),
    wrapModel(model, use) {
      // One wrapper per model and use, so wrapped models stay comparable by identity.
      let byUse = models.get(model);
      if (!byUse) {
        byUse = new Map();
        models.set(model, byUse);
      }
      const key = use.scenario ?? "";
      let wrapped = byUse.get(key);
      if (!wrapped) {
        wrapped = new ChatSpanModel(model, tracer, scopes, use, options.captureContent === true);
        byUse.set(key, wrapped);
      }
      return wrapped;
    },
  };
}

function runSpans(tracer: Tracer, scopes: SpanScopes, launch: RunLaunch): RunExtension {
  const agentSpans = new WeakMap<RunContext, SpanScope>();
  // The innermost span of this run where the hook runs (plan mode's, inside the agent's), else the agent's.
  const scopeOf = (run: RunContext): SpanScope => {
    const current = scopes.current();
    if (current?.sessionId === run.sessionId) return current;
    return agentSpans.get(run) ?? { context: scopes.parent(), sessionId: run.sessionId };
  };
  const trace_ = launch.options.trace;
  return {
    name: "telemetry",
    async around(run, loop): Promise<StepsOutcome> {
      const agentName = trace_?.agentType ?? run.agent.name;
      const parent = { context: scopes.parent(), sessionId: run.sessionId };
      const { span, scope } = startSpanIn(tracer, parent, { operation: "invoke_agent", target: agentName }, "INTERNAL", {
        "gen_ai.agent.name": agentName,
        "gen_ai.request.model": run.model.model.modelId,
        "gen_ai.provider.name": run.model.model.provider,
        ...(trace_ ? { "arbor.parent_conversation.id": trace_.parentSessionId } : {}),
        ...(launch.path.length > 0 ? { "arbor.entry.start_id": launch.path[launch.path.length - 1]!.id } : {}),
      });
      agentSpans.set(run, scope);
      const outcome = await inSpan(scopes, scope, span, () =>
        planMode(run, launch) ? planSpan(tracer, scopes, scope, loop) : loop(),
      );
      span.setAttributes({
        "gen_ai.usage.input_tokens": run.tally.usage.input,
        "gen_ai.usage.output_tokens": run.tally.usage.output,
        ...(outcome.stopReason ? { "arbor.stop_reason": outcome.stopReason } : {}),
        ...(run.state.leafId ? { "arbor.entry.leaf_id": run.state.leafId } : {}),
      });
      endWith(span, outcome);
      return outcome;
    },
    written(run, entry) {
      const span = otelApi().trace.getSpan(agentSpans.get(run)?.context ?? scopes.parent());
      span?.addEvent("arbor.entry", { "arbor.entry.id": entry.id, "arbor.entry.role": entry.message.role });
      return undefined;
    },
    async aroundCompaction(run, compact) {
      const { span, scope } = startSpanIn(tracer, scopeOf(run), "compaction", "INTERNAL");
      // The summary's model call nests under this span.
      const written = await inSpan(scopes, scope, span, compact);
      const summary = written.find((e) => e.type === "compaction");
      if (summary?.type === "compaction") {
        span.setAttributes({ "arbor.entry.id": summary.id, "arbor.compaction.tokens_before": summary.tokensBefore });
      }
      span.end();
      return written;
    },
    async aroundTool(run, call, invoke) {
      const { span, scope } = startSpanIn(tracer, scopeOf(run), { operation: "execute_tool", target: call.tool }, "INTERNAL", {
        "gen_ai.tool.name": call.tool,
        "gen_ai.tool.call.id": call.callId,
        "gen_ai.tool.type": "function",
        "arbor.entry.id": call.messageId,
      });
      const outcome = await inSpan(scopes, scope, span, invoke);
      endWith(
        span,
        outcome.isError
          ? { status: "error", error: { code: outcome.code, message: outcome.output.slice(0, 200) } }
          : { status: "done" },
      );
      return outcome;
    },
  };
}

/** A top-level run of a runtime whose config turns plan mode on (sub-runs never plan). */
function planMode(run: RunContext, launch: RunLaunch): boolean {
  return run.config.plan.enabled && launch.options.trace === undefined;
}

async function planSpan(
  tracer: Tracer,
  scopes: SpanScopes,
  parent: SpanScope,
  loop: () => Promise<StepsOutcome>,
): Promise<StepsOutcome> {
  const { span, scope } = startSpanIn(tracer, parent, "plan_mode", "INTERNAL");
  const outcome = await scopes.within(scope, loop);
  endWith(span, outcome);
  return outcome;
}
