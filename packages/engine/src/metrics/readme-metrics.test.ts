/**
 * The metrics table of docs/operations/observability.md lists exactly
 * the metrics a worker and a collector sharing one registry export: a metric
 * added to the code and not to the docs, or the other way round, fails here.
 */
import { readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import { engineTest } from "../test-support/engine-test.js";
import { startErrandStack } from "../test-support/errand-stack.js";
import { testAgents } from "../test-support/test-agents.js";
import { createPrometheusMetrics } from "./prometheus-metrics.js";

const it = engineTest("readme-metrics");

const README = new URL("../../../../docs/operations/observability.md", import.meta.url);

/** The metric names of the docs' table: its rows' first cell, `errand_…` in backticks. */
function readmeMetricNames(): string[] {
  const section = readFileSync(README, "utf8").split("## Metrics (Prometheus, Grafana)")[1] ?? "";
  return [...section.matchAll(/^\| `(errand_[a-z_]+)` \|/gm)].map((match) => match[1]!).sort();
}

describe("the docs' metrics table", () => {
  it("names every metric a worker and a collector export, and no other", async ({ fx }) => {
    const prometheus = createPrometheusMetrics();
    const stack = await startErrandStack({
      connection: fx.server.url,
      prefix: fx.prefix,
      logger: createLogger({ level: "silent" }),
      worker: { agents: testAgents({ redis: fx.redis, prefix: fx.prefix }), prometheus },
      collector: { prometheus },
    });
    try {
      const exported = prometheus.registry.getMetricsAsArray().map(({ name }) => name);
      expect(readmeMetricNames()).toEqual(exported.sort());
    } finally {
      await stack.stop();
    }
  });
});
