import { type Config, genAiTelemetry, type RunObserver } from "@arbor/core";

/** The run observer that exports spans, and how to send what is still buffered before the process ends. */
export interface Telemetry {
  observer: RunObserver;
  /** Exports the spans still buffered and stops; never throws (a collector that is down loses spans, not the run). */
  shutdown(): Promise<void>;
}

/** Where traces go: the traces-only endpoint as given, else `{base}/v1/traces`, as OTLP/HTTP exporters agree. */
export function tracesUrl(config: Config, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const tracesOnly = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (tracesOnly) return tracesOnly;
  const base = config.telemetry.endpoint;
  return base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * OpenTelemetry GenAI traces over OTLP/HTTP when an endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `telemetry.endpoint`), else undefined. The SDK is loaded only then, so runs without telemetry
 * neither load nor pay for it.
 */
export async function startTelemetry(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Telemetry | undefined> {
  const url = tracesUrl(config, env);
  if (url === undefined) return undefined;
  const [{ BatchSpanProcessor, TracerProvider }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || "arbor" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) })],
  });
  const observer = genAiTelemetry(provider.getTracer("arbor"), { captureContent: config.telemetry.captureContent });
  return {
    observer,
    shutdown: async () => {
      await provider.shutdown().catch(() => undefined);
    },
  };
}
