/**
 * Versions in the registry: which version `fire` routes a run to (the
 * newest live one, or the one pinned), what it records in `run-queued`, and
 * which versions count as live or unavailable since when.
 */
import { describe, expect } from "vitest";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { TEST_AGENTS, testAgents } from "../test-support/test-agents.js";
import { createWorker } from "../worker/create-worker.js";
import { readAgentVersions, versionStandings } from "./agent-versions.js";
import {
  type AgentRegistration,
  chooseRegistration,
  isLive,
  readAgentRegistrations,
  readQueueRegistrations,
  registerQueue,
} from "./registry.js";

const it = engineTest("versions");

const NOW = new Date("2026-12-01T12:00:00.000Z");

function registration(
  version: string | undefined,
  startedAt: string,
  lastSeenAt: string,
  extra: Partial<AgentRegistration> = {},
): AgentRegistration {
  return {
    name: "writer",
    queue: "errand.writer",
    supportsSchema: true,
    scriptFromInput: false,
    ...(version === undefined ? {} : { version }),
    startedAt,
    heartbeatMs: 1_000,
    lastSeenAt,
    ...extra,
  };
}

const v1 = registration("v1", "2026-12-01T10:00:00.000Z", "2026-12-01T11:59:59.500Z");
const v2 = registration("v2", "2026-12-01T11:58:00.000Z", "2026-12-01T11:59:59.000Z");
const v1Gone = registration("v1", "2026-12-01T10:00:00.000Z", "2026-12-01T11:50:00.000Z");

describe("chooseRegistration with versions", () => {
  it("routes to the newest live version (the one whose workers started last) unless pinned", () => {
    expect(chooseRegistration([v1, v2], NOW)?.version).toBe("v2");
    expect(chooseRegistration([v2, v1], NOW)?.version).toBe("v2");
    expect(chooseRegistration([v1, v2], NOW, "v1")?.version).toBe("v1");
    expect(chooseRegistration([v1, v2], NOW, "v3")).toBeUndefined();
  });

  it("skips a newer version with no live worker, and waits on a pinned one's last record", () => {
    const v3Stopped = registration("v3", "2026-12-01T11:59:00.000Z", "2026-12-01T11:59:30.000Z", {
      stoppedAt: "2026-12-01T11:59:40.000Z",
    });
    expect(chooseRegistration([v1, v2, v3Stopped], NOW)?.version).toBe("v2");
    expect(chooseRegistration([v2, v3Stopped], NOW, "v3")).toBe(v3Stopped);
  });
});

describe("versionStandings", () => {
  it("says which versions have a live worker, and since when the others have none", () => {
    const stopped = registration("v0", "2026-12-01T09:00:00.000Z", "2026-12-01T11:00:00.000Z", {
      stoppedAt: "2026-12-01T11:00:05.000Z",
    });
    const unversioned = registration(undefined, "2026-12-01T09:00:00.000Z", NOW.toISOString());
    expect(versionStandings([v1Gone, v2, stopped, unversioned], NOW)).toEqual([
      expect.objectContaining({
        version: "v0",
        live: false,
        unavailableSince: "2026-12-01T11:00:05.000Z",
      }),
      // No close recorded: gone when its liveness window (three beats) ended.
      expect.objectContaining({
        version: "v1",
        live: false,
        unavailableSince: "2026-12-01T11:50:03.000Z",
      }),
      {
        agent: "writer",
        version: "v2",
        live: true,
        queues: ["errand.writer"],
        lastSeenAt: v2.lastSeenAt,
        waitingRuns: 0,
      },
    ]);
  });
});

describe("fire with versions", () => {
  it.beforeAll(async ({ fx }) => {
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    await registerTestQueue(fx.redis, fx.errand.keys, [
      { name: "writer", version: "v1", startedAt: at(-60_000) },
    ]);
    await registerTestQueue(fx.redis, fx.errand.keys, [
      { name: "writer", version: "v2", startedAt: at(-1_000) },
    ]);
  });

  async function queuedVersion(fx: EngineFixture, runId: string): Promise<string | undefined> {
    const [queued] = await fx.errand.store.readLog(runId);
    return queued?.type === "run-queued" ? queued.data.agentVersion : undefined;
  }

  it("leaves out a record whose version is longer than a run's log takes (128 characters)", async ({
    fx,
  }) => {
    const at = NOW.toISOString();
    const agents = [129, 128].map((length) => ({
      ...registration("v".repeat(length), at, at),
      name: "long-version",
    }));
    await registerQueue(fx.redis, fx.errand.keys, { agents });
    const read = await readAgentRegistrations(fx.redis, fx.errand.keys, "long-version");
    expect(read.map((record) => record.version?.length)).toEqual([128]);
  });

  it("records the newest live version in run-queued, or the pinned one", async ({ fx }) => {
    const newest = await fx.errand.fire({ agent: "writer", input: {} });
    expect(await queuedVersion(fx, newest.runId)).toBe("v2");
    const pinned = await fx.errand.fire({ agent: "writer", input: {}, agentVersion: "v1" });
    expect(await queuedVersion(fx, pinned.runId)).toBe("v1");
    const again = await fx.errand.fire({ agent: "writer", input: {}, agentVersion: "v1" });
    expect(await queuedVersion(fx, again.runId)).toBe("v1");
    // No worker takes them: the registry's reader counts them waiting, by version.
    expect(await readAgentVersions(fx.redis, fx.errand.keys, new Date())).toEqual([
      expect.objectContaining({ agent: "writer", version: "v1", live: true, waitingRuns: 2 }),
      expect.objectContaining({ agent: "writer", version: "v2", live: true, waitingRuns: 1 }),
    ]);
  });

  it("refuses a pinned version no worker ever registered, naming the known ones", async ({
    fx,
  }) => {
    await expect(
      fx.errand.fire({ agent: "writer", input: {}, agentVersion: "v9" }),
    ).rejects.toMatchObject({
      code: "agent_version_unavailable",
      message: expect.stringContaining("registered versions: v1, v2"),
    });
  });
});

describe("the last worker of a version to close", () => {
  it("marks that version stopped while the queue and the other version stay live", async ({
    fx,
  }) => {
    const start = (version: string) =>
      createWorker({
        connection: fx.server.url,
        prefix: fx.prefix,
        agents: testAgents({ redis: fx.redis, prefix: fx.prefix, version }),
        logger: createLogger({ level: "silent" }),
      });
    const v1 = await start("v1");
    const v2 = await start("v2");
    expect(v2.queue).toBe(v1.queue);
    await v1.close();

    const now = new Date();
    const records = await readAgentRegistrations(fx.redis, fx.errand.keys, TEST_AGENTS.plain);
    const liveness = Object.fromEntries(
      records.map((record) => [record.version, isLive(record, now)]),
    );
    expect(liveness).toEqual({ v1: false, v2: true });
    const queues = await readQueueRegistrations(fx.redis, fx.errand.keys);
    const queue = queues.find((candidate) => candidate.queue === v1.queue);
    expect(queue !== undefined && isLive(queue, now)).toBe(true);
    // New runs go to the version still live.
    const { runId } = await fx.errand.fire({ agent: TEST_AGENTS.plain, input: { script: [] } });
    const [queued] = await fx.errand.store.readLog(runId);
    expect(queued?.type === "run-queued" && queued.data.agentVersion).toBe("v2");
    await v2.close();
  });
});
