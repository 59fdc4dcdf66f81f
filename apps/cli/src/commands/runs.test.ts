import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunEvent, RunResult } from "@errand/core";
import { createErrand, type Errand, engineKeys } from "@errand/engine";
import { parseStoredResult } from "@errand/store/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  recordingInput,
  SCRIPTED_CITY,
  SILENT_INPUT,
  SLOW_INPUT,
  writeCitySchema,
} from "../test-support/city.js";
import { startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-runs");
const keys = engineKeys(prefix);
let server: RedisServer;
let redis: Redis;
let client: Errand;
let processes: Awaited<ReturnType<typeof startErrandProcesses>>;
let dir: string;
let schemaArg: string;
let succeeded: RunResult;
let failed: RunResult;

function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

async function fireAndWait(input: string): Promise<RunResult> {
  const outcome = await errand([
    "fire",
    SCRIPTED_CITY,
    "--input",
    input,
    "--schema",
    schemaArg,
    "--wait",
    "--json",
  ]);
  return RunResult.parse(JSON.parse(outcome.stdout));
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  redis = new Redis(server.url);
  client = createErrand({ connection: server.url, prefix });
  processes = await startErrandProcesses(server.url, prefix);
  dir = await mkdtemp(join(tmpdir(), "errand-cli-runs-"));
  schemaArg = await writeCitySchema(dir);
  succeeded = await fireAndWait(recordingInput("Hanoi", 8_000_000));
  failed = await fireAndWait(SILENT_INPUT);
});

afterAll(async () => {
  await processes?.stop();
  await client?.close();
  redis?.disconnect();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("errand runs list", () => {
  it("lists the runs newest first with --json", async () => {
    const outcome = await errand(["runs", "list", "--json"]);
    expect(outcome.code).toBe(0);
    const page = JSON.parse(outcome.stdout);
    expect(page.hasMore).toBe(false);
    expect(page.items.map((run: { runId: string }) => run.runId)).toEqual([
      failed.runId,
      succeeded.runId,
    ]);
    expect(page.count).toBe(2);
  });

  it("filters by status", async () => {
    const outcome = await errand(["runs", "list", "--status", "failed", "--json"]);
    const page = JSON.parse(outcome.stdout);
    expect(page.items).toEqual([
      expect.objectContaining({
        runId: failed.runId,
        status: "failed",
        error: { code: "no_structured_output" },
      }),
    ]);
  });

  it("prints a table for people", async () => {
    const outcome = await errand(["runs", "list"]);
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^run +agent +status +created +settled +error$/);
    expect(lines[1]).toContain(failed.runId);
    expect(lines[1]).toContain("no_structured_output");
  });

  it("refuses an unknown status with exit 2", async () => {
    const outcome = await errand(["runs", "list", "--status", "lost"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/--status must be one of/);
  });
});

describe("errand runs show", () => {
  it("prints the stored RunResult with --json", async () => {
    const outcome = await errand(["runs", "show", succeeded.runId, "--json"]);
    expect(outcome.code).toBe(0);
    const stored = await redis.get(keys.result(succeeded.runId));
    expect(stored).not.toBeNull();
    expect(JSON.parse(outcome.stdout)).toEqual(parseStoredResult(succeeded.runId, stored ?? ""));
  });

  it("prints the fields for people", async () => {
    const outcome = await errand(["runs", "show", failed.runId]);
    expect(outcome.stdout).toMatch(/^status +failed$/m);
    expect(outcome.stdout).toMatch(/^error +no_structured_output: /m);
  });

  it("exits 1 for a run that does not exist and 2 for a malformed id", async () => {
    const missing = await errand(["runs", "show", "R0000000000000000000000000000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/R0000000000000000000000000000/);
    const malformed = await errand(["runs", "show", "not-a-run"]);
    expect(malformed.code).toBe(2);
  });
});

describe("errand runs events", () => {
  it("prints one line per event for people", async () => {
    const outcome = await errand(["runs", "events", succeeded.runId]);
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^ {3}1 {2}\S+ {2}run-queued +scripted-city depth 0 with an output schema$/,
    );
    expect(lines.at(-1)).toMatch(/finished/);
  });

  it("prints the log as a JSON array of events with --json", async () => {
    const outcome = await errand(["runs", "events", failed.runId, "--json"]);
    const events = RunEvent.array().parse(JSON.parse(outcome.stdout));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.type).toBe("finished");
  });
});

describe("errand runs tail and runs cancel", () => {
  it("shows a running run, follows it live until a cancel settles it, and exits 1", async () => {
    const fired = await errand(["fire", SCRIPTED_CITY, "--input", SLOW_INPUT, "--json"]);
    const { runId } = JSON.parse(fired.stdout);
    const tail = errand(["runs", "tail", runId, "--json"]);
    for await (const event of client.events(runId, { follow: true })) {
      if (event.type === "run-started") break;
    }
    const running = await errand(["runs", "show", runId, "--json"]);
    expect(JSON.parse(running.stdout)).toMatchObject({ runId, status: "running", attempts: 1 });
    expect(JSON.parse(running.stdout)).not.toHaveProperty("settledAt");

    const cancel = await errand(["runs", "cancel", runId, "--reason", "not needed", "--json"]);
    expect(cancel.code).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ runId, requested: true });

    const tailed = await tail;
    expect(tailed.code).toBe(1);
    const events = tailed.stdout
      .trimEnd()
      .split("\n")
      .map((line) => RunEvent.parse(JSON.parse(line)));
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["run-queued", "run-started", "cancel-requested", "cancelled"]),
    );
    expect(events.at(-1)?.type).toBe("cancelled");

    const again = await errand(["runs", "cancel", runId]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${runId}: already cancelled, nothing to cancel\n`);
  });
});

describe("errand runs rerun", () => {
  it("fires a failed run again once, on the version that ran, and says so", async () => {
    const first = await errand(["runs", "rerun", "--run", failed.runId, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const answer = JSON.parse(first.stdout);
    expect(answer).toMatchObject({ total: 1, succeeded: 1, failed: 0, hasMore: false });
    const [item] = answer.results;
    expect(item).toMatchObject({ ok: true, sourceRunId: failed.runId });
    const [queued] = await client.store.readLog(item.runId);
    expect(queued?.type === "run-queued" && queued.data.metadata.rerunOf).toBe(failed.runId);

    const again = await errand(["runs", "rerun", "--run", failed.runId]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      `${failed.runId}: re-run as ${item.runId} (re-run before by this request)\n1 re-run, 0 not\n`,
    );
  });

  it("exits 1 for a run it cannot re-run and 2 when no runs or both kinds are named", async () => {
    const unknown = await errand(["runs", "rerun", "--run", `${failed.runId.slice(0, -4)}0000`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("not re-run (not_found");
    expect((await errand(["runs", "rerun"])).code).toBe(2);
    const both = await errand(["runs", "rerun", "--run", failed.runId, "--status", "failed"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("not both");
  });
});
