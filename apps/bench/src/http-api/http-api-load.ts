/**
 * The HTTP API under load, measured (never asserted): run after a build as
 * `node apps/bench/dist/http-api/http-api-load.js [--clients 200] [--wait-ms 60000] [--runs 300]`.
 *
 * 1. Long polls: `clients` callers each hold `GET /v1/runs/{id}?waitMs=` on
 *    one API process, on runs that do not settle; it reports how many were
 *    answered, the Redis connections of the deployment before, during and
 *    after (Redis' `connected_clients`), and the API process's memory.
 * 2. Fire and collect: `runs` runs fired and collected over HTTP (POST
 *    /v1/runs, then POST /v1/runs/collect with waitMs), and the same through
 *    the library, with a worker and a collector in this process: wall time
 *    per run, and one run at a time (fire, then wait for it) as medians.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createCollector, createErrand, createWorker } from "@errand/engine";
import { startRedis } from "@errand/local-redis";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { noopLogger } from "@errand/runtime/ops";
import { Redis } from "ioredis";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "200" },
    "wait-ms": { type: "string", default: "60000" },
    runs: { type: "string", default: "300" },
  },
});
const CLIENTS = Number(values.clients);
const WAIT_MS = Number(values["wait-ms"]);
const RUNS = Number(values.runs);
const PREFIX = "bench-http";

const median = (samples: number[]) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** The resident memory of process `pid`, in MiB (Linux). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const redis = await startRedis();
const probe = new Redis(redis.url);
const connections = async () =>
  Number(/connected_clients:(\d+)/.exec(await probe.info("clients"))![1]);
const shared = { connection: redis.url, prefix: PREFIX, logger: noopLogger };
const model = scriptedModel();
const greeter = defineAgent({
  name: "greeter",
  instructions: "Greet.",
  model,
  script: [{ say: "Hello!" }],
});
const idle = defineAgent({ name: "idle", instructions: "Never runs here.", model });

// An agent registered by a worker that then stops: its runs queue and never settle.
await (await createWorker({ ...shared, agents: [idle] })).close();
const worker = await createWorker({ ...shared, agents: [greeter], concurrency: 32 });
const collector = createCollector(shared);
await collector.start();
const errand = createErrand(shared);

const child = spawn(process.execPath, [new URL("./api-process.js", import.meta.url).pathname], {
  env: { ...process.env, REDIS_URL: redis.url, ERRAND_PREFIX: PREFIX },
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise<string>((resolve) => {
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line.startsWith("listening ")) resolve(line.slice("listening ".length));
  });
});
const post = async (path: string, body: unknown) =>
  (
    await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    })
  ).json() as Promise<Record<string, unknown>>;

// 1. Long polls.
const idleRuns = (
  (
    await post("/v1/runs/batch", {
      runs: Array.from({ length: CLIENTS }, () => ({ agent: "idle", input: null })),
    })
  ).results as { runId: string }[]
).map((result) => result.runId);
await fetch(`${url}/v1/runs/${idleRuns[0]}`);
const before = { connections: await connections(), rssMiB: rssMiB(child.pid!) };
const during: { connections: number; rssMiB: number }[] = [];
const sampler = setInterval(
  async () => during.push({ connections: await connections(), rssMiB: rssMiB(child.pid!) }),
  5_000,
);
const started = performance.now();
const answers = await Promise.all(
  idleRuns.map(async (runId) => {
    const response = await fetch(`${url}/v1/runs/${runId}?waitMs=${WAIT_MS}`);
    const body = (await response.json()) as { status?: string };
    return { status: response.status, run: body.status, ms: performance.now() - started };
  }),
);
clearInterval(sampler);
const after = { connections: await connections(), rssMiB: rssMiB(child.pid!) };
const longPolls = {
  clients: CLIENTS,
  waitMs: WAIT_MS,
  answered: answers.filter((answer) => answer.status === 200).length,
  stillQueued: answers.filter((answer) => answer.run === "queued").length,
  answeredAfterMs: {
    first: Math.round(Math.min(...answers.map((a) => a.ms))),
    last: Math.round(Math.max(...answers.map((a) => a.ms))),
  },
  redisConnections: {
    before: before.connections,
    duringMin: Math.min(...during.map((d) => d.connections)),
    duringMax: Math.max(...during.map((d) => d.connections)),
    after: after.connections,
  },
  apiRssMiB: {
    before: Math.round(before.rssMiB),
    duringMax: Math.round(Math.max(...during.map((d) => d.rssMiB))),
    after: Math.round(after.rssMiB),
  },
};

// 2. Fire and collect, over HTTP and through the library.
async function inBatches<T>(count: number, fire: (index: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += 20) {
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, count - start) }, (_, i) => fire(start + i)),
      )),
    );
  }
  return out;
}
async function measure(
  fire: () => Promise<string>,
  collect: (ids: string[]) => Promise<number>,
  waitOne: (id: string) => Promise<unknown>,
) {
  const start = performance.now();
  const ids = await inBatches(RUNS, fire);
  const settled = await collect(ids);
  const msPerRun = (performance.now() - start) / RUNS;
  const single: number[] = [];
  for (let index = 0; index < 30; index += 1) {
    const at = performance.now();
    await waitOne(await fire());
    single.push(performance.now() - at);
  }
  return {
    runs: RUNS,
    settled,
    wallMsPerRun: Number(msPerRun.toFixed(2)),
    oneRunMedianMs: Number(median(single).toFixed(1)),
  };
}
const overHttp = await measure(
  async () => (await post("/v1/runs", { agent: "greeter", input: null })).runId as string,
  async (ids) => {
    let page = await post("/v1/runs/collect", { runIds: ids, waitMs: 30_000, limit: 500 });
    while ((page.pending as number) > 0)
      page = await post("/v1/runs/collect", { runIds: ids, waitMs: 30_000, limit: 500 });
    return page.succeeded as number;
  },
  async (id) => (await fetch(`${url}/v1/runs/${id}?waitMs=30000`)).json(),
);
const library = await measure(
  async () => (await errand.fire({ agent: "greeter", input: null })).runId,
  async (ids) => {
    let page = await errand.collect(ids, { waitMs: 30_000, limit: 500 });
    while (page.pending > 0) page = await errand.collect(ids, { waitMs: 30_000, limit: 500 });
    return page.succeeded;
  },
  (id) => errand.result(id, { waitMs: 30_000 }),
);

process.stdout.write(
  `${JSON.stringify({ longPolls, fireAndCollect: { overHttp, library } }, null, 2)}\n`,
);
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
await worker.close({ graceMs: 0 });
await collector.stop();
await errand.close();
probe.disconnect();
await redis.stop();
