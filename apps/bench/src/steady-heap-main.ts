/**
 * `node apps/bench/dist/steady-heap-main.js [runs] [ratePerSec] [profileFile]`
 * (default 1,000 runs at 50 runs/s): the bytes one process's JavaScript heap
 * allocates a run at a steady rate, as JSON. The client, the worker and the
 * collector run in this process on a private Redis; each run is fired with
 * `fire` on a fixed schedule and awaited with `result({ waitMs })`, as the
 * latency phase does but without its profile's recording, so the figure is
 * errand's (and ioredis' and BullMQ's) alone. At a steady rate a turn of the
 * event loop mostly carries one run's work, unlike the end-to-end phase's
 * batches. The heap is metered from after {@link WARMUP_RUNS} runs (`heap-meter.ts`).
 * Given `profileFile`, the metered runs also leave there a sampling heap
 * profile (`.heapprofile`, for Chrome's DevTools) that keeps the samples of
 * objects already collected: what was allocated, not what stayed.
 */
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { startBenchRedis } from "./bench-redis.js";
import { startErrandStack } from "./errand-stack.js";
import { startHeapMeter } from "./heap-meter.js";
import { offerRuns, throwFirstFailure } from "./phases/errand-latency.js";

/** Runs offered before the meter starts: the connections open, the scripts load, the code warms. */
const WARMUP_RUNS = 200;

const runs = Number(process.argv[2] ?? 1_000);
const ratePerSec = Number(process.argv[3] ?? 50);
const profileFile = process.argv[4];

/** Bytes between two samples of the heap profile: a few per run at a run's few hundred KB. */
const PROFILE_SAMPLING_BYTES = 16 * 1024;

/** Starts the inspector's sampling heap profiler; the returned function writes the profile to `file`. */
async function startAllocationProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: PROFILE_SAMPLING_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async () => {
    const { profile } = await session.post("HeapProfiler.stopSampling");
    session.disconnect();
    await writeFile(file, JSON.stringify(profile));
  };
}

const redis = await startBenchRedis();
try {
  const stack = await startErrandStack({ redis, concurrency: 50 });
  try {
    const runOne = async (index: number): Promise<void> => {
      const { runId } = await stack.errand.fire(stack.spec(index));
      const result = await stack.errand.result(runId, { waitMs: 60_000 });
      if (result?.status !== "succeeded") throw new Error(`run ${runId} ended ${result?.status}`);
    };
    throwFirstFailure(await offerRuns(runs, WARMUP_RUNS, ratePerSec, runOne));
    const stopProfile =
      profileFile === undefined ? undefined : await startAllocationProfile(profileFile);
    const meter = startHeapMeter();
    throwFirstFailure(await offerRuns(0, runs, ratePerSec, runOne));
    const heapKbPerRun = meter.stop() / 1024 / runs;
    await stopProfile?.();
    process.stdout.write(`${JSON.stringify({ runs, ratePerSec, heapKbPerRun })}\n`);
  } finally {
    await stack.stop();
  }
} finally {
  await redis.stop();
}
