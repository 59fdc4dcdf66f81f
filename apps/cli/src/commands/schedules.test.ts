/**
 * `errand schedules …` as a user runs it (the built executable): a schedule
 * upserted with metadata its runs carry, listed with its next fire and its
 * first run, paused, resumed and removed; a bad cron expression and a
 * `--metadata` without `=` refused with exit 2 and nothing written.
 * The agent's worker runs in this process, ticks and all.
 */
import {
  createErrand,
  createWorker,
  type Errand,
  type ErrandWorker,
  SCHEDULE_METADATA_KEY,
} from "@errand/engine";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { noopLogger } from "@errand/runtime/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-schedules");
let server: RedisServer;
let worker: ErrandWorker;
let client: Errand;

const reporter = defineAgent({
  name: "reporter",
  instructions: "Report.",
  model: scriptedModel(),
  script: [{ say: "Reported." }],
});

function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  // The worker's lines are not the test's.
  worker = await createWorker({
    connection: server.url,
    prefix,
    agents: [reporter],
    logger: noopLogger,
  });
  client = createErrand({ connection: server.url, prefix });
});
afterAll(async () => {
  await client?.close();
  await worker?.close({ graceMs: 500 });
  await server?.stop();
});

describe("errand schedules", () => {
  it("upserts, lists, pauses, resumes and removes a schedule", async () => {
    const upserted = await errand([
      "schedules",
      "upsert",
      "hourly",
      "--agent",
      "reporter",
      "--every-ms",
      "1000",
      "--overlap",
      "allow",
      "--metadata",
      "team=ops",
      "--json",
    ]);
    expect(upserted.code, upserted.stderr).toBe(0);
    expect(JSON.parse(upserted.stdout)).toMatchObject({
      id: "hourly",
      everyMs: 1_000,
      paused: false,
      metadata: { team: "ops" },
    });
    await expect
      .poll(async () => (await client.schedules.list())[0]?.lastRuns.length, { timeout: 60_000 })
      .toBeGreaterThan(0);
    const [firstRun] = (await client.schedules.list())[0]!.lastRuns;
    const [queued] = await client.store.readLog(firstRun!.runId);
    expect(queued?.type === "run-queued" && queued.data.metadata).toMatchObject({
      team: "ops",
      [SCHEDULE_METADATA_KEY]: "hourly",
    });

    const listed = await errand(["schedules", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      /^hourly: reporter, every 1000 ms, overlap allow, catch-up last\n/,
    );
    expect(listed.stdout).toMatch(/next fire: \d{4}-.*last fire: \d{4}-/);

    const paused = await errand(["schedules", "pause", "hourly", "--json"]);
    expect(JSON.parse(paused.stdout)).toMatchObject({ id: "hourly", paused: true });
    const resumed = await errand(["schedules", "resume", "hourly", "--json"]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: "hourly", paused: false });
    const removed = await errand(["schedules", "remove", "hourly"]);
    expect(removed.stdout).toBe("hourly: removed\n");
    expect(await client.schedules.list()).toEqual([]);
  });

  it("refuses a bad cron expression, or --metadata without =, with exit 2, writing nothing", async () => {
    const refused = await errand([
      "schedules",
      "upsert",
      "bad",
      "--agent",
      "reporter",
      "--cron",
      "61 * * * *",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is not a cron expression");
    const unlabelled = await errand([
      "schedules",
      "upsert",
      "bad",
      "--agent",
      "reporter",
      "--every-ms",
      "1000",
      "--metadata",
      "team",
    ]);
    expect(unlabelled.code).toBe(2);
    expect(unlabelled.stderr).toBe(
      'errand: schedules upsert: --metadata takes key=value, not "team"\n',
    );
    expect(await client.schedules.list()).toEqual([]);
  });
});
