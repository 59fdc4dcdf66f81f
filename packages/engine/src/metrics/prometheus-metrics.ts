/**
 * errand's Prometheus metrics (docs/operations/observability.md): one
 * prom-client `Registry` per process part (worker, collector, dashboard), or
 * one shared by the parts an application embeds together. Counters and
 * histograms are updated as things happen; gauges (queue depth, collector
 * lag, worker slots) are read when the registry is scraped, by the parts
 * that add them ({@link PrometheusMetrics.addScrapedGauge}).
 *
 * ```ts
 * const worker = await createWorker({ connection, agents });
 * http.createServer(async (_req, res) => {
 *   res.writeHead(200, { "content-type": worker.prometheus.contentType });
 *   res.end(await worker.prometheus.text());
 * }).listen(9464);
 * ```
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** The prefix of every metric's name. */
const METRIC_PREFIX = "errand_";

/** Buckets of a run's duration, in seconds: 0.1 s to an hour. */
const RUN_DURATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1_800, 3_600];

/** Buckets of a step's duration (one model request and its tool calls), in seconds. */
const STEP_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The metrics of one process part, on their registry. */
export interface PrometheusMetrics {
  /** The prom-client registry: merge it, or serve it with {@link text}. */
  readonly registry: Registry;
  /** The `Content-Type` of {@link text}. */
  readonly contentType: string;
  runsSettled: Counter<"agent" | "status" | "error_code">;
  runDuration: Histogram<"agent" | "status">;
  stepDuration: Histogram<"agent">;
  tokens: Counter<"agent" | "model" | "type">;
  toolCalls: Counter<"agent" | "tool" | "outcome">;
  redisErrors: Counter<"kind">;
  /**
   * Adds the gauge `errand_<suffix>`, set by `read` at every scrape (a read
   * that throws leaves the last values); when the registry has it already
   * (two parts sharing one registry), that one stays and `read` is not added.
   */
  addScrapedGauge<T extends string>(
    suffix: string,
    help: string,
    labelNames: readonly T[],
    read: (gauge: Gauge<T>) => Promise<void> | void,
  ): void;
  /** Every metric in Prometheus' text format. */
  text(): Promise<string>;
}

/** Creates errand's metrics on a new registry (or on `registry`). */
export function createPrometheusMetrics(registry: Registry = new Registry()): PrometheusMetrics {
  const registers = [registry];
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
  return {
    registry,
    contentType: registry.contentType,
    runsSettled: new Counter({
      name: name("runs_settled_total"),
      help: "Runs a worker carried to their end, by agent, status and (failed runs) error code.",
      labelNames: ["agent", "status", "error_code"],
      registers,
    }),
    runDuration: new Histogram({
      name: name("run_duration_seconds"),
      help: "From a run's queueing to its settling, for the runs a worker settled.",
      labelNames: ["agent", "status"],
      buckets: RUN_DURATION_BUCKETS,
      registers,
    }),
    stepDuration: new Histogram({
      name: name("step_duration_seconds"),
      help: "One step of a run: its model request and its tool calls, until the step is logged.",
      labelNames: ["agent"],
      buckets: STEP_DURATION_BUCKETS,
      registers,
    }),
    tokens: new Counter({
      name: name("tokens_total"),
      help: "Tokens spent by model requests, by agent, model and type (input, output).",
      labelNames: ["agent", "model", "type"],
      registers,
    }),
    toolCalls: new Counter({
      name: name("tool_calls_total"),
      help: "Tool calls by agent, tool and outcome (ok, error, refused).",
      labelNames: ["agent", "tool", "outcome"],
      registers,
    }),
    redisErrors: new Counter({
      name: name("redis_errors_total"),
      help: "Errors the process's Redis connections reported, by kind.",
      labelNames: ["kind"],
      registers,
    }),
    addScrapedGauge(suffix, help, labelNames, read) {
      if (registry.getSingleMetric(name(suffix)) !== undefined) return;
      new Gauge({
        name: name(suffix),
        help,
        labelNames,
        registers,
        async collect() {
          try {
            await read(this);
          } catch {
            // A scrape answers what it can: the gauge keeps its last values.
          }
        },
      });
    },
    text: () => registry.metrics(),
  };
}
