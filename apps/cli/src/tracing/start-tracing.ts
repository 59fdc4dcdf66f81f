/**
 * The OpenTelemetry SDK of the CLI's processes, set up from the standard
 * `OTEL_*` variables only when an OTLP endpoint is given
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`):
 * spans go in batches to it over OTLP/HTTP (JSON), and what is still
 * buffered is sent when the command ends. The exporter reads the rest of its
 * settings (headers, timeout, `OTEL_BSP_*`) from the same variables.
 * `OTEL_SERVICE_NAME` names the process (default {@link DEFAULT_SERVICE_NAME});
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` keep it off.
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

/** `service.name` when `OTEL_SERVICE_NAME` does not give one. */
const DEFAULT_SERVICE_NAME = "errand";

type Env = Readonly<Record<string, string | undefined>>;

/** Tracing of this process, once started: {@link TracingHandle.shutdown} sends what is buffered. */
export interface TracingHandle {
  shutdown(): Promise<void>;
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

/** Whether `env` asks for traces: an OTLP endpoint is set and neither switch turns them off. */
export function tracingWanted(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Installs the SDK as this process's global tracer provider when `env` asks
 * for traces (see {@link tracingWanted}); `undefined` otherwise, and errand's
 * spans stay no-ops.
 */
export function startTracing(env: Env): TracingHandle | undefined {
  if (!tracingWanted(env)) return undefined;
  const resource = resourceFromAttributes({ "service.name": DEFAULT_SERVICE_NAME }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
