/**
 * What flow control costs a run: the end-to-end bench runs (one worker, one
 * collector) without flow control, and with it on every run — a concurrency
 * key per run (over ten tenants, queued fairly), a per-agent and a per-key
 * limit high enough never to refuse a run — measured as CPU per run of this
 * process and of Redis, and runs a second.
 */
import { BENCH_AGENT } from "../bench-agent.js";
import type { BenchRedis } from "../bench-redis.js";
import { type CpuPerUnit, cpuPerUnit, startCpuMeter } from "../cpu-meter.js";
import { fireBenchRuns, startErrandStack, waitForResults } from "../errand-stack.js";
import { perSecond } from "../stats.js";

/** The longest a round waits for its runs. */
const SETTLE_TIMEOUT_MS = 600_000;

/** How many tenants the runs with flow control are spread over. */
const TENANTS = 10;

/** A limit no round reaches: flow control checks every run and refuses none. */
const UNREACHED_LIMIT = 100_000;

/** The flow control the "on" rounds run with. */
const FLOW_CONTROL = {
  agentConcurrency: { [BENCH_AGENT]: UNREACHED_LIMIT },
  keyConcurrency: [{ key: "tenant-*", limit: UNREACHED_LIMIT }],
};

/** What one round measured. */
export interface FlowOverheadRound {
  flowControl: boolean;
  runsPerSec: number;
  cpu: CpuPerUnit;
}

/** One round of `runs` runs at `concurrency`, with flow control or without. */
export async function measureFlowOverhead(
  redis: BenchRedis,
  runs: number,
  concurrency: number,
  flowControl: boolean,
): Promise<FlowOverheadRound> {
  await redis.flush();
  const stack = await startErrandStack({
    redis,
    concurrency,
    ...(flowControl ? { flowControl: FLOW_CONTROL } : {}),
  });
  try {
    const meter = await startCpuMeter(redis.admin);
    const start = performance.now();
    const keyOf = flowControl ? (index: number) => `tenant-${index % TENANTS}` : undefined;
    const runIds = await fireBenchRuns(stack, runs, 0, keyOf);
    await waitForResults(stack.errand, runIds, SETTLE_TIMEOUT_MS);
    const elapsed = performance.now() - start;
    return {
      flowControl,
      runsPerSec: perSecond(runs, elapsed),
      cpu: cpuPerUnit(await meter.read(), runs),
    };
  } finally {
    await stack.stop();
  }
}
