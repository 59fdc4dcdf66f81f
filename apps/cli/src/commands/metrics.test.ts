/**
 * `--metrics-port` under a real Prometheus: Debian's `prometheus` scrapes a
 * worker and a collector (spawned from the built CLI) during a small
 * workload, and its HTTP API finds errand's series with the counts the
 * workload implies: runs settled by status and error code, their
 * durations, tokens, tool calls, worker slots, the collectors' gauges, and
 * the queue's jobs by state, a parked parent counted as parked.
 */
import { createErrand, type Errand } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix, waitUntil } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CITY_SCHEMA, SCRIPTED_CITY, SILENT_INPUT, SLOW_INPUT } from "../test-support/city.js";
import {
  type ErrandProcess,
  FIXTURE_AGENTS,
  fixtureQueue,
  spawnErrand,
} from "../test-support/processes.js";
import { type PrometheusServer, type Sample, startPrometheus } from "../test-support/prometheus.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-metrics");
const CONCURRENCY = 3;
const SUCCEEDED = 5;
const FAILED = 2;

let server: RedisServer;
let errand: Errand;
let prometheus: PrometheusServer;
const spawned: ErrandProcess[] = [];

/** Spawns `errand <args> --metrics-port 0` and returns the port it logged. */
async function spawnWithMetrics(args: string[], readyText: string): Promise<number> {
  const started = await spawnErrand(
    [...args, "--metrics-port", "0", "--prefix", prefix],
    { REDIS_URL: server.url },
    readyText,
  );
  spawned.push(started);
  const port = Number(/"metricsPort":(\d+)/.exec(started.output())?.[1]);
  expect(port, started.output()).toBeGreaterThan(0);
  return port;
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  errand = createErrand({ connection: server.url, prefix });
  const workerPort = await spawnWithMetrics(
    ["worker", "--agents", FIXTURE_AGENTS, "--concurrency", String(CONCURRENCY)],
    "worker ready",
  );
  const collectorPort = await spawnWithMetrics(["collector"], "collector ready");
  prometheus = await startPrometheus({
    "errand-worker": `127.0.0.1:${workerPort}`,
    "errand-collector": `127.0.0.1:${collectorPort}`,
  });
});

afterAll(async () => {
  await prometheus?.stop();
  await Promise.all(spawned.splice(0).map((process) => process.stop("SIGKILL")));
  await errand?.close();
  await server?.stop();
});

/** Queries `expr` until `wanted` holds of its answer; fails naming the last answer if it never does. */
async function queryUntil(expr: string, wanted: (samples: Sample[]) => boolean): Promise<Sample[]> {
  let last: Sample[] = [];
  const found = await waitUntil(
    async () => {
      last = await prometheus.query(expr);
      return wanted(last) ? last : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  expect(found, `${expr} last answered ${JSON.stringify(last)}`).toBeDefined();
  return last;
}

/** The single value of `expr` once it equals `value`. */
async function expectValue(expr: string, value: number): Promise<void> {
  const samples = await queryUntil(expr, (answer) => answer[0]?.value === value);
  expect(samples.map((sample) => sample.value)).toEqual([value]);
}

/** The tokens the runs' logs say their model requests spent, by type. */
async function loggedTokens(runIds: readonly string[]): Promise<{ input: number; output: number }> {
  const tokens = { input: 0, output: 0 };
  for (const runId of runIds) {
    for (const event of await errand.store.readLog(runId)) {
      if (event.type !== "model-responded") continue;
      tokens.input += event.data.usage.inputTokens;
      tokens.output += event.data.usage.outputTokens;
    }
  }
  return tokens;
}

describe("--metrics-port scraped by Prometheus", () => {
  it("finds every run settled, its duration, tokens, tool calls and slots on the worker", async () => {
    const record = (city: string) => ({
      script: [{ call: [{ tool: "structured_output", args: { city, population: city.length } }] }],
    });
    const fired = [
      ...Array.from({ length: SUCCEEDED }, (_, n) =>
        errand.fire({
          agent: SCRIPTED_CITY,
          input: record(`City ${n}`),
          outputSchema: CITY_SCHEMA,
        }),
      ),
      ...Array.from({ length: FAILED }, () =>
        errand.fire({
          agent: SCRIPTED_CITY,
          input: JSON.parse(SILENT_INPUT),
          outputSchema: CITY_SCHEMA,
        }),
      ),
    ];
    const runIds = (await Promise.all(fired)).map(({ runId }) => runId);
    const results = await Promise.all(
      runIds.map((runId) => errand.result(runId, { waitMs: 30_000 })),
    );
    const failedCodes = results.flatMap((result) =>
      result?.status === "failed" && result.error ? [result.error.code] : [],
    );
    expect(failedCodes).toHaveLength(FAILED);
    const [failedCode] = failedCodes;

    const worker = '{job="errand-worker"}';
    await expectValue(
      `errand_runs_settled_total{status="succeeded",agent="${SCRIPTED_CITY}"}`,
      SUCCEEDED,
    );
    await expectValue(
      `errand_runs_settled_total{status="failed",error_code="${failedCode}"}`,
      FAILED,
    );
    await expectValue(`sum(errand_run_duration_seconds_count${worker})`, SUCCEEDED + FAILED);
    await expectValue(
      `errand_tool_calls_total{tool="structured_output",outcome="recorded"}`,
      SUCCEEDED,
    );
    const tokens = await loggedTokens(runIds);
    expect(tokens.input).toBeGreaterThan(0);
    await expectValue(`sum(errand_tokens_total{type="input",model="scripted"})`, tokens.input);
    await expectValue(`sum(errand_tokens_total{type="output"})`, tokens.output);
    await expectValue(`sum(errand_step_duration_seconds_count${worker})`, SUCCEEDED + FAILED);
    await expectValue(`errand_worker_slots${worker}`, CONCURRENCY);
    await expectValue(`errand_worker_slots_busy${worker}`, 0);
  });

  it("finds the queue's jobs by state on the collector: a parked parent, its running child", async () => {
    const { runId: parent } = await errand.fire({
      agent: "scripted-parent",
      input: {
        script: [
          {
            call: [
              {
                tool: "spawn_agents",
                args: { agents: [{ agent: SCRIPTED_CITY, input: JSON.parse(SLOW_INPUT) }] },
              },
            ],
          },
          { call: [{ tool: "collect_agents", args: { wait: true } }] },
          { say: "Collected." },
        ],
      },
    });
    const queue = `{job="errand-collector",queue="${fixtureQueue(prefix)}"`;
    await expectValue(`errand_queue_jobs${queue},state="parked"}`, 1);
    await expectValue(`errand_queue_jobs${queue},state="active"}`, 1);
    await expectValue(`errand_queue_jobs${queue},state="delayed"}`, 0);
    await expectValue(`errand_queue_jobs${queue},state="waiting"}`, 0);
    await expectValue(`errand_worker_slots_busy{job="errand-worker"}`, 1);
    await expectValue(`errand_collector_dead_letters{job="errand-collector"}`, 0);
    const backlog = await queryUntil(
      'errand_collector_pending_entries{job="errand-collector"}',
      (samples) => samples.length === 1,
    );
    expect(backlog[0]?.value).toBeGreaterThanOrEqual(0);

    await errand.cancel(parent, { cascade: true });
    await errand.result(parent, { waitMs: 30_000 });
    await expectValue(`errand_queue_jobs${queue},state="parked"}`, 0);
  });

  it("refuses --metrics-port equal to --health-port with exit 2: /metrics has a port of its own", async () => {
    const same = await runErrand(
      ["collector", "--health-port", "9464", "--metrics-port", "9464", "--prefix", prefix],
      { env: { REDIS_URL: server.url } },
    );
    expect(same.code).toBe(2);
    expect(same.stderr).toBe(
      "errand: --metrics-port and --health-port are both 9464: /metrics has a port of its own; choose another\n",
    );
  });
});
