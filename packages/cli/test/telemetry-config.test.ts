import { resolveConfig } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { envLayer } from "../../core/src/config/resolve.js";
import { startTelemetry, tracesUrl } from "../src/telemetry.js";

describe("telemetry settings", () => {
  it("is off without an endpoint: no observer, nothing loaded", async () => {
    const config = resolveConfig([]);
    expect(config.telemetry).toEqual({ captureContent: false });
    expect(await startTelemetry(config, {})).toBeUndefined();
  });

  it("reads the endpoint and content capture from the standard variables", () => {
    const config = resolveConfig([
      envLayer({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
      }),
    ]);
    expect(config.telemetry).toEqual({ endpoint: "http://127.0.0.1:4318/", captureContent: true });
    expect(tracesUrl(config, {})).toBe("http://127.0.0.1:4318/v1/traces");
    // The traces-only endpoint is a full URL, used as given.
    expect(tracesUrl(config, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9/t" })).toBe("http://127.0.0.1:9/t");
  });

  it("refuses an endpoint that is not a URL with a clear error", () => {
    for (const endpoint of ["localhost 4318", "ftp://127.0.0.1:4318"]) {
      expect(() => resolveConfig([envLayer({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })])).toThrow(
        /OTEL_EXPORTER_OTLP_ENDPOINT: .*http:\/\/127\.0\.0\.1:4318/,
      );
    }
  });
});
