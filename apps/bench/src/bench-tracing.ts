/**
 * `--tracing`: the bench with the OpenTelemetry SDK installed, so that the
 * cost of errand's spans shows in its CPU figures. Spans are recorded and
 * batched as in production, and exported to memory (no network in the
 * figures); the count is kept for the report.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  NodeTracerProvider,
} from "@opentelemetry/sdk-trace-node";

/** The SDK installed for one bench run. */
export interface BenchTracing {
  /** Flushes, uninstalls the SDK and resolves with the number of spans exported; once, however often called. */
  stop(): Promise<number>;
}

/** Installs the SDK (batched, exported to memory) as the global tracer provider. */
export function startBenchTracing(): BenchTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  let stopped: Promise<number> | undefined;
  const stop = async () => {
    await provider.forceFlush();
    const exported = exporter.getFinishedSpans().length;
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    return exported;
  };
  return {
    stop() {
      stopped ??= stop();
      return stopped;
    },
  };
}
