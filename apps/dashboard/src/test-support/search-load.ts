/**
 * Measures what concurrent searches over large runs cost the dashboard's
 * process: the figures of the README's *Search* section. Test-only tooling,
 * not exported; run from the package with
 *
 * ```sh
 * pnpm exec tsx --conditions=@errand/source src/test-support/search-load.ts [runs] [inputKiB] [searches]
 * ```
 *
 * It starts a private Redis, fires `runs` runs (default 1,000) whose input
 * holds `inputKiB` KiB (default 200) to an agent whose worker has left (they
 * stay queued), serves the dashboard in a child process of its own, then
 * sends `searches` (default 10) searches at once for a value no run has (so
 * each looks at as many runs as it may), and prints the wall time until the
 * last answer, each answer's status and `scanned`, and the child's resident
 * memory (VmRSS) before, at its peak (VmHWM) and after.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import {
  createCollector,
  createErrand,
  createWorker,
  type Errand,
  type FireSpec,
} from "@errand/engine";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { startRedis, uniqueKeyPrefix } from "@errand/testing";
import { createDashboard } from "../create-dashboard.js";
import { silentLogger } from "./workload.js";

const AGENT = "search-load";

/** `VmRSS` and `VmHWM` of process `pid`, in MB. */
async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kib("VmRSS") / 1024), peakMb: Math.round(kib("VmHWM") / 1024) };
}

/** The child: serves a dashboard and prints its URL. */
async function serve(redisUrl: string, prefix: string): Promise<void> {
  const dashboard = await createDashboard({
    connection: redisUrl,
    prefix,
    port: 0,
    logger: silentLogger,
  });
  console.log(dashboard.url);
}

/** How many runs `list` finds (the collector indexes runs as it folds their first event). */
async function listedRuns(errand: Errand): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const listed = await errand.list({ limit: 500, ...(cursor === undefined ? {} : { cursor }) });
    count += listed.count;
    cursor = listed.nextCursor;
  } while (cursor !== undefined);
  return count;
}

async function fireLargeRuns(redisUrl: string, prefix: string, runs: number, inputKiB: number) {
  const common = { connection: redisUrl, prefix };
  const agent = defineAgent({ name: AGENT, instructions: "-", model: scriptedModel() });
  const worker = await createWorker({ ...common, agents: [agent], logger: silentLogger });
  await worker.close();
  const collector = createCollector(common);
  await collector.start();
  const errand = createErrand(common);
  const filler = "x".repeat(inputKiB * 1024);
  for (let fired = 0; fired < runs; fired += 100) {
    const specs: FireSpec[] = Array.from({ length: Math.min(100, runs - fired) }, (_, i) => ({
      agent: AGENT,
      input: { filler },
      metadata: { customer: `customer-${fired + i}` },
    }));
    await errand.fireMany(specs);
  }
  while ((await listedRuns(errand)) < runs) await delay(250);
  await collector.stop();
  await errand.close();
}

async function measure(runs: number, inputKiB: number, searches: number): Promise<void> {
  const redis = await startRedis({ maxmemoryPolicy: "noeviction" });
  const prefix = uniqueKeyPrefix("search-load");
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "serve", redis.url, prefix],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    await fireLargeRuns(redis.url, prefix, runs, inputKiB);
    const lines = createInterface({ input: child.stdout! });
    const url = await new Promise<string>((resolve) => lines.once("line", resolve));
    const before = await memoryOf(child.pid!);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: searches }, async () => {
        const response = await fetch(`${url}/api/runs?q=no-such-customer&limit=50`);
        const body = (await response.json()) as { scanned?: number };
        return `${response.status}${body.scanned === undefined ? "" : ` scanned ${body.scanned}`}`;
      }),
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const after = await memoryOf(child.pid!);
    console.log(
      JSON.stringify(
        {
          runs,
          inputKiB,
          searches,
          seconds,
          answers,
          rssBeforeMb: before.rssMb,
          rssPeakMb: after.peakMb,
          rssAfterMb: after.rssMb,
        },
        null,
        2,
      ),
    );
  } finally {
    child.kill();
    await redis.stop();
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "serve") {
  await serve(rest[0]!, rest[1]!);
} else {
  await measure(Number(mode ?? 1_000), Number(rest[0] ?? 200), Number(rest[1] ?? 10));
}
