/**
 * A fire with `durability: "replicated"`, on a real Redis Cluster of 3
 * masters and 3 replicas: it is answered once a replica of its master has
 * its run (one WAIT per master for a batch), so a run fired while its
 * replica lags, then answered, is still there once its master is SIGKILLed
 * and the replica promoted. A fire whose replica does not answer in time is
 * refused with its runId; the engine does not fire it again, and firing it
 * again under its idempotency key finds that run, never a second one. A run
 * lost with its master while its fire waited for the replica is fired again
 * by the engine, under a new runId.
 */
import { ErrandError, isErrandError, isTerminalEventType, type RunEvent } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { uniqueKeyPrefix } from "@errand/testing";
import { Cluster } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import type { Errand } from "../client/client.js";
import { startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs, type LogCapture } from "../test-support/log-capture.js";
import {
  askNode,
  cutReplicaOff,
  masterPortOf,
  useReplicatedCluster,
  waitCalls,
} from "../test-support/replicated-cluster.js";

/** An agent that plays its script and touches no Redis of its own. */
const scripted = defineAgent({
  name: "replicated-fire",
  instructions: "Follow your script.",
  model: scriptedModel(),
  scriptFromInput: true,
});

/** A spec of a run that sleeps `sleepMs`, then answers `text`. */
function spec(text: string, sleepMs = 100) {
  return { agent: scripted.name, input: { script: [{ sleepMs, say: text }] } };
}

const fixture = useReplicatedCluster();

/** A stack whose client, worker and collector all use replicated durability, logging to `logs`. */
function startReplicatedStack(
  prefix: string,
  replicationTimeoutMs: number,
  logs: LogCapture = captureLogs(),
) {
  return startErrandStack({
    connection: fixture.url,
    prefix,
    durability: "replicated",
    replicationTimeoutMs,
    logger: logs.logger,
    worker: { agents: [scripted], concurrency: 8, retry: { baseDelayMs: 50, maxDelayMs: 500 } },
  });
}

/** An idempotency key whose runs live on the master at `port`. */
async function idempotencyKeyOn(
  errand: Errand,
  client: Cluster,
  port: number,
  label: string,
): Promise<string> {
  for (let i = 0; i < 1_000; i++) {
    const key = `${label}-${i}`;
    const runId = errand.store.newRunId(key);
    if ((await masterPortOf(client, errand.store.keys.runLog(runId))) === port) return key;
  }
  throw new Error(`no idempotency key found for the master at ${port}`);
}

/** How many runs of the agent were ever opened under the store's prefix (its shards' agent indexes). */
async function runsOpened(errand: Errand, client: Cluster): Promise<number> {
  let runs = 0;
  for (let shard = 0; shard < errand.store.shards; shard++) {
    runs += await client.zcard(errand.store.keys.runIndexByAgent(shard, scripted.name));
  }
  return runs;
}

/** The error `fire` rejected with, checked to be the one of a run fired but not confirmed. */
function notConfirmed(rejection: unknown): { runId: string; message: string } {
  expect(isErrandError(rejection, "redis_unavailable")).toBe(true);
  const error = rejection as ErrandError;
  expect(error.retryable).toBe(true);
  const runId = error.details?.runId;
  expect(typeof runId).toBe("string");
  expect(error.message).toContain(`run ${runId} was fired but is not confirmed on a replica`);
  expect(error.message).toContain("no replica acknowledged the append");
  return { runId: runId as string, message: error.message };
}

/** Expects the run to have settled `succeeded`, with one terminal event. */
async function expectSucceededOnce(errand: Errand, runId: string): Promise<void> {
  const result = await errand.result(runId, { waitMs: 120_000 });
  expect(result?.status, `${runId}: ${JSON.stringify(result?.error)}`).toBe("succeeded");
  const events: RunEvent[] = [];
  for await (const event of errand.events(runId)) events.push(event);
  expect(events.filter((event) => isTerminalEventType(event.type))).toHaveLength(1);
}

describe('a fire with durability "replicated"', () => {
  it("waits once per master for a batch, not once per run", async () => {
    const stack = await startReplicatedStack(uniqueKeyPrefix("replicated-batch"), 10_000);
    const { errand } = stack;
    try {
      // Settled before counting: a settling append waits too, a run's other appends do not.
      await expectSucceededOnce(errand, (await errand.fire(spec("warm"))).runId);
      const before = await waitCalls(fixture.cluster);
      const batch = await errand.fireMany(
        Array.from({ length: 24 }, (_, i) => spec(`run ${i}`, 3_000)),
      );
      const waits = (await waitCalls(fixture.cluster)) - before;
      expect(batch.succeeded).toBe(24);
      // 24 runs over 16 shards on 3 masters: one WAIT for each master the batch wrote on.
      expect(waits).toBeGreaterThanOrEqual(1);
      expect(waits).toBeLessThanOrEqual(3);
      for (const item of batch.results) await expectSucceededOnce(errand, item.runId!);
    } finally {
      await stack.stop();
    }
  }, 240_000);

  it("refuses a fire its replica did not confirm, with its runId, and finds that run when fired again under its key", async () => {
    const stack = await startReplicatedStack(uniqueKeyPrefix("replicated-shortfall"), 1_000);
    const { errand } = stack;
    const client = new Cluster(fixture.cluster.nodes);
    const victim = fixture.cluster.nodes[1]!;
    try {
      const idempotencyKey = await idempotencyKeyOn(errand, client, victim.port, "shortfall");
      const keyed = { ...spec("keyed"), idempotencyKey };
      const letReplicaBack = await cutReplicaOff(fixture.cluster, victim);

      const first = notConfirmed(await errand.fire(keyed).catch((error: unknown) => error));
      // Fired again under its key: the same run, still not confirmed; no second run.
      expect(notConfirmed(await errand.fire(keyed).catch((error: unknown) => error))).toEqual(
        first,
      );
      const batch = await errand.fireMany([keyed]);
      expect(batch.results[0]).toMatchObject({ ok: false, runId: first.runId, retryable: true });
      // Without a key: the engine does not fire it again (it has a runId), so one run is opened.
      let confirmedElsewhere = 0;
      let unkeyed: string | undefined;
      for (let tries = 0; unkeyed === undefined && tries < 60; tries++) {
        const fired = await errand.fire(spec(`unkeyed ${tries}`)).catch((error: unknown) => error);
        if (fired instanceof ErrandError) unkeyed = notConfirmed(fired).runId;
        else confirmedElsewhere++;
      }
      expect(unkeyed).toBeDefined();
      expect(await runsOpened(errand, client)).toBe(1 + confirmedElsewhere + 1);

      await letReplicaBack();
      await vi.waitFor(
        async () =>
          expect(await errand.fire(keyed)).toEqual({ runId: first.runId, deduplicated: true }),
        { timeout: 60_000, interval: 200 },
      );
      expect(await runsOpened(errand, client)).toBe(1 + confirmedElsewhere + 1);
      // Fired, though not confirmed: both run.
      await expectSucceededOnce(errand, first.runId);
      await expectSucceededOnce(errand, unkeyed!);
    } finally {
      client.disconnect();
      await stack.stop();
    }
  }, 240_000);

  it("keeps a run answered while its replica lagged when its master is SIGKILLed right after", async () => {
    const stack = await startReplicatedStack(uniqueKeyPrefix("replicated-failover"), 60_000);
    const { errand } = stack;
    const client = new Cluster(fixture.cluster.nodes);
    // failOver(0) SIGKILLs the first master with a replica: the first started, before any failover.
    const victim = fixture.cluster.nodes[0]!;
    try {
      // Two runs sure to be on the victim; the others wherever their shard is.
      const keys = [
        await idempotencyKeyOn(errand, client, victim.port, "first"),
        await idempotencyKeyOn(errand, client, victim.port, "second"),
      ];
      const letReplicaBack = await cutReplicaOff(fixture.cluster, victim);
      const batchFiring = errand.fireMany(Array.from({ length: 12 }, (_, i) => spec(`batch ${i}`)));
      const singlesFiring = Promise.all([
        ...keys.map((idempotencyKey) => errand.fire({ ...spec(idempotencyKey), idempotencyKey })),
        ...Array.from({ length: 4 }, (_, i) => errand.fire(spec(`single ${i}`))),
      ]);
      const firing = Promise.all([batchFiring, singlesFiring]);
      const answeredWhileCut = await Promise.race([
        firing.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000)),
      ]);
      // No answer while the victim's writes reach no replica: the fires wait for one.
      expect(answeredWhileCut).toBe(false);
      await letReplicaBack();
      const [batch, singles] = await firing;
      // Answered: SIGKILL the master at once, with no wait for its replica to catch up.
      const failover = await fixture.cluster.failOver(0);
      expect(failover.killedPort).toBe(victim.port);

      expect(batch.succeeded).toBe(12);
      const runIds = [
        ...batch.results.map((item) => item.runId!),
        ...singles.map((fired) => fired.runId),
      ];
      for (const runId of runIds) await expectSucceededOnce(errand, runId);
    } finally {
      client.disconnect();
      await stack.stop();
    }
  }, 300_000);

  it("fires again, under a new runId, a run lost with its master while it waited for the replica", async () => {
    const logs = captureLogs();
    const stack = await startReplicatedStack(uniqueKeyPrefix("replicated-lost"), 60_000, logs);
    const { errand } = stack;
    const client = new Cluster(fixture.cluster.nodes);
    // The first master with a replica now: nodes[0] failed over above and came back as a replica.
    const victim = fixture.cluster.nodes[1]!;
    try {
      const idempotencyKey = await idempotencyKeyOn(errand, client, victim.port, "lost");
      const letReplicaBack = await cutReplicaOff(fixture.cluster, victim);
      const firing = errand.fire({ ...spec("lost"), idempotencyKey });
      // The fire's WAIT holds its connection on the victim: the run is written there alone.
      await vi.waitFor(
        async () =>
          expect(await askNode(victim, (redis) => redis.client("LIST"))).toMatch(/ cmd=wait /),
        { timeout: 30_000, interval: 50 },
      );
      const failover = await fixture.cluster.failOver(0);
      expect(failover.killedPort).toBe(victim.port);
      await letReplicaBack();

      const fired = await firing;
      const confirming = logs.lines.filter(
        (line) => line.write === "confirmation of a fired run on a replica",
      );
      expect(confirming.length).toBeGreaterThan(0);
      const lostRunId = confirming[0]!.runId as string;
      // The run written before the SIGKILL went with its master; its fire made another.
      expect(fired.runId).not.toBe(lostRunId);
      expect(await errand.store.readHead(lostRunId)).toBeUndefined();
      expect(await runsOpened(errand, client)).toBe(1);
      await expectSucceededOnce(errand, fired.runId);
    } finally {
      client.disconnect();
      await stack.stop();
    }
  }, 300_000);
});
