/**
 * The built CLI on a real 3-master Redis Cluster, named by a
 * `redis+cluster://` URL: worker, collector, fire, runs, dashboard and doctor
 * work on it (queue shards on a cluster: `packages/engine/src/queues/queue-shards.test.ts`);
 * and a parent spawning its children while the queue's master restarts never succeeds
 * without them. One cluster for the file (slow to start); the restart comes
 * last.
 */
import { RunResult } from "@errand/core";
import { createErrand, type Errand } from "@errand/engine";
import { openRedisUrl } from "@errand/engine/ops";
import { type RedisClusterServer, startRedisCluster, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingInput, SCRIPTED_CITY } from "../test-support/city.js";
import { fixtureQueue, spawnErrand, startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const SCRIPTED_PARENT = "scripted-parent";
const prefix = uniqueKeyPrefix("cli-cluster");
let cluster: RedisClusterServer;
let url: string;
let processes: Awaited<ReturnType<typeof startErrandProcesses>>;

function errand(args: readonly string[], redisUrl = url) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: redisUrl } });
}

/** The input of a scripted parent that waits `sleepMs`, spawns `children`, collects them and says so. */
function parentOf(children: readonly unknown[], sleepMs = 0) {
  return {
    script: [
      { call: [{ tool: "spawn_agents", args: { agents: children } }], sleepMs },
      { call: [{ tool: "collect_agents", args: { wait: true } }] },
      { say: "Collected." },
    ],
  };
}

function city(name: string, population: number) {
  return { agent: SCRIPTED_CITY, input: JSON.parse(recordingInput(name, population)) };
}

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, appendonly: true });
  url = `redis+cluster://${cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(",")}`;
  // Slots for every parent at once: the restart test's parents must all be thinking when the master goes.
  processes = await startErrandProcesses(url, prefix, ["--concurrency", "16"]);
}, 120_000);

afterAll(async () => {
  await processes?.stop();
  await cluster?.stop();
}, 60_000);

describe("the CLI on a Redis Cluster named redis+cluster://", () => {
  it("fire --wait runs a parent and its children through the worker and the collector; runs list, show and tree read them", async () => {
    const children = [city("Oslo", 709_000), city("Lima", 10_000_000), city("Quito", 2_800_000)];
    const fired = await errand([
      "fire",
      SCRIPTED_PARENT,
      "--input",
      JSON.stringify(parentOf(children)),
      "--wait",
      "--json",
    ]);
    expect(fired.code, fired.stderr).toBe(0);
    const parent = RunResult.parse(JSON.parse(fired.stdout));
    expect(parent.status).toBe("succeeded");

    const list = await errand(["runs", "list", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const runs = JSON.parse(list.stdout).items as { status: string }[];
    expect(runs.map((run) => run.status)).toEqual(Array(4).fill("succeeded"));

    const show = await errand(["runs", "show", parent.runId]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("Collected.");

    const tree = await errand(["runs", "tree", parent.runId]);
    expect(tree.code, tree.stderr).toBe(0);
    expect(tree.stdout.match(/scripted-city/g)).toHaveLength(3);
  }, 120_000);

  it("dashboard serves the runs and the workers it reads from the cluster", async () => {
    const dashboard = await spawnErrand(
      ["dashboard", "--port", "0", "--prefix", prefix],
      { REDIS_URL: url, ERRAND_DASHBOARD_TOKEN: "" },
      "Ctrl-C to stop.",
    );
    try {
      const base = /errand dashboard: (http:\/\/\S+)/.exec(dashboard.output())?.[1];
      const runs = await fetch(`${base}/api/runs`);
      expect(runs.status).toBe(200);
      expect(((await runs.json()) as { items: unknown[] }).items).toHaveLength(4);
      const overview = await fetch(`${base}/api/overview`);
      expect(overview.status).toBe(200);
      expect(((await overview.json()) as { workers: unknown[] }).workers).toHaveLength(1);
      expect(await dashboard.stop("SIGTERM")).toBe(0);
    } finally {
      await dashboard.stop();
    }
  }, 60_000);

  it("doctor passes, checking the cluster's state and each master's memory, writes and persistence", async () => {
    const doctor = await errand(["doctor", "--json"]);
    const report = JSON.parse(doctor.stdout) as {
      ok: boolean;
      checks: { name: string; ok: boolean; detail: string }[];
    };
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(doctor.code).toBe(0);
    const names = report.checks.map((check) => check.name);
    expect(names).toContain("cluster state");
    const coLocation = report.checks.find((check) => check.name === "cluster hash-tag co-location");
    expect(coLocation?.detail).toContain(`queue ${fixtureQueue(prefix)}: 1 shard over 1 master`);
    for (const { host, port } of cluster.nodes) {
      for (const name of ["redis version", "maxmemory-policy", "memory", "writes", "persistence"]) {
        expect(names).toContain(`${name} (${host}:${port})`);
      }
    }
  }, 60_000);

  it("doctor given one node's redis:// URL says to name the cluster, and explains the MOVED it meets", async () => {
    const doctor = await errand(["doctor", "--json"], cluster.urls[0]);
    expect(doctor.code).toBe(1);
    const problems = (
      JSON.parse(doctor.stdout).checks as {
        name: string;
        ok: boolean;
        detail: string;
        fix?: string;
      }[]
    ).filter((check) => !check.ok);
    expect(problems.map((check) => check.name)).toContain("cluster url");
    const moved = problems.filter(
      (check) => check.name !== "cluster url" && check.detail.includes("MOVED"),
    );
    expect(moved.length).toBeGreaterThan(0);
    for (const check of moved) {
      expect(check.detail).toMatch(
        /^(could not check|Redis refuses writes): MOVED: the key's slot is served by another node/,
      );
      expect(check.fix).toMatch(/^name the cluster, not one node: REDIS_URL=redis\+cluster:\/\//);
    }
  }, 60_000);

  it("refuses a cluster URL written wrong with exit 2, saying how it is written", async () => {
    const bad = await errand(["runs", "list"], "redis+cluster://127.0.0.1:7000/3");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'errand: invalid Redis Cluster URL: a Redis Cluster has only database 0, not "3"; write redis+cluster://[<user>:<password>@]host1:port1,host2:port2 (rediss+cluster:// for TLS)\n',
    );
  });
});

/** How many children each parent spawns in the restart test. */
const CHILDREN_PER_PARENT = 3;

/** How many parents spawn during the restart. */
const PARENTS = 5;

/** How long each parent thinks before it spawns: the master goes down meanwhile. */
const PARENT_THINKS_MS = 4_000;

/** How long the master stays down: past the cluster's node timeout (5 s), so the cluster answers CLUSTERDOWN meanwhile. */
const MASTER_DOWN_MS = 7_000;

/** The writes of a spawn that wait a moving cluster out, as the worker logs them. */
const SPAWN_WRITES = ["spawn of the run's children", "enqueue of written runs"];

/** The index (in `cluster.nodes`) of the master serving `key`'s slot. */
async function masterOf(redis: ReturnType<typeof openRedisUrl>, key: string): Promise<number> {
  const slot = Number(await redis.cluster("KEYSLOT", key));
  const ranges = await redis.cluster("SLOTS");
  const [, , master] = ranges.find(([low, high]) => slot >= low && slot <= high) ?? [];
  const index = cluster.nodes.findIndex(
    ({ host, port }) => host === master?.[0] && port === master?.[1],
  );
  if (index === -1) throw new Error(`no master serves slot ${slot}`);
  return index;
}

/** Resolves once `runId`'s log holds a `run-started`: its worker has it in hand. */
async function started(runId: string): Promise<void> {
  for (;;) {
    const events = await client.store.readLog(runId);
    if (events.some((event) => event.type === "run-started")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let client: Errand;

describe("a master restarting while parents spawn", () => {
  beforeAll(() => {
    client = createErrand({ connection: url, prefix });
  });
  afterAll(async () => {
    await client?.close();
  });

  it("never lets a parent succeed without every child it spawned; a run fired meanwhile waits and runs", async () => {
    const redis = openRedisUrl(url);
    try {
      // The master to restart serves the queue: every child's enqueue meets it down.
      const queueMaster = await masterOf(redis, `${client.keys.bullmqPrefix}:x`);
      const fireParent = (n: number) =>
        client.fire({
          agent: SCRIPTED_PARENT,
          input: parentOf(
            Array.from({ length: CHILDREN_PER_PARENT }, (_, c) => city(`P${n}C${c}`, c + 1)),
            PARENT_THINKS_MS,
          ),
        });
      const parents = await Promise.all(Array.from({ length: PARENTS }, (_, n) => fireParent(n)));
      // A parent whose own log is on that master waits to record its answer, not to spawn: one at least must not be.
      const mastersOfParents = () =>
        Promise.all(parents.map(({ runId }) => masterOf(redis, client.keys.runHead(runId))));
      while ((await mastersOfParents()).every((master) => master === queueMaster)) {
        parents.push(await fireParent(parents.length));
      }
      // Every parent is thinking when the master goes; they spawn while it is away.
      await Promise.all(parents.map(({ runId }) => started(runId)));
      await cluster.stopMaster(queueMaster);
      await new Promise((resolve) => setTimeout(resolve, MASTER_DOWN_MS));
      // Runs fired while the cluster is down, one by one or as a batch, wait for it instead of failing.
      const firedWhileDown = client.fire(city("Reykjavik", 140_000));
      const batchFiredWhileDown = client.fireMany(
        ["Tromsø", "Nuuk", "Longyearbyen", "Ushuaia", "Hobart", "Punta Arenas"].map((name, n) =>
          city(name, 10_000 + n),
        ),
      );
      await cluster.startMaster(queueMaster);
      const lateRun = await client.result((await firedWhileDown).runId, { waitMs: 120_000 });
      expect(lateRun?.status).toBe("succeeded");
      const lateBatch = await batchFiredWhileDown;
      expect(lateBatch.results.map((item) => item.error)).toEqual(Array(6).fill(undefined));
      for (const item of lateBatch.results) {
        const late = await client.result(item.runId!, { waitMs: 120_000 });
        expect(late?.status).toBe("succeeded");
      }

      for (const { runId } of parents) {
        const result = await client.result(runId, { waitMs: 120_000 });
        expect(result?.status === "succeeded" || result?.status === "failed").toBe(true);
        if (result?.status !== "succeeded") continue;
        const children = await redis.zrange(client.keys.children(runId), 0, -1);
        expect(children).toHaveLength(CHILDREN_PER_PARENT);
        const settled = await Promise.all(
          children.map((child) => client.result(child, { waitMs: 60_000 })),
        );
        const unsettled = settled.filter((child) => child?.status !== "succeeded");
        expect(
          settled.map((child) => child?.status),
          JSON.stringify(unsettled),
        ).toEqual(Array(CHILDREN_PER_PARENT).fill("succeeded"));
      }
    } finally {
      redis.disconnect();
    }
    // Spawns did meet the cluster down, and waited it out: writing a child, or enqueueing the written ones.
    const output = processes.worker.output();
    const waits = output
      .split("\n")
      .filter(
        (line) =>
          SPAWN_WRITES.some((write) => line.includes(`"write":"${write}"`)) &&
          line.includes("retrying the write until"),
      );
    expect(waits.length, output.slice(-8_000)).toBeGreaterThan(0);
  }, 240_000);
});
