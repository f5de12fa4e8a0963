import { createRequire } from "node:module";
import type * as Api from "@opentelemetry/api";

/**
 * The OpenTelemetry API, loaded on first use: only a host that passes a tracer ever calls this, so
 * importing `@arbor/core` does not load the API. It is required, not imported, because span
 * callbacks are synchronous; the API keeps its state (context manager, span keys) on global
 * symbols, so this copy and the host's own import of it share one context.
 */
export function otelApi(): typeof Api {
  return createRequire(import.meta.url)("@opentelemetry/api") as typeof Api;
}
