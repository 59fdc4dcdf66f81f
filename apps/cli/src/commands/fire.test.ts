import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunEvent, RunResult } from "@errand/core";
import { engineKeys } from "@errand/engine";
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
import { GREETER_AGENTS, spawnErrand, startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-fire");
const keys = engineKeys(prefix);
let server: RedisServer;
let redis: Redis;
let processes: Awaited<ReturnType<typeof startErrandProcesses>>;
let dir: string;
let schemaArg: string;

function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  redis = new Redis(server.url);
  processes = await startErrandProcesses(server.url, prefix);
  dir = await mkdtemp(join(tmpdir(), "errand-cli-fire-"));
  schemaArg = await writeCitySchema(dir);
});

afterAll(async () => {
  await processes?.stop();
  redis?.disconnect();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("errand fire --wait", () => {
  it("prints the run's RunResult with --json, and exits 0 when it succeeded", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      recordingInput("Oslo", 709_000),
      "--schema",
      schemaArg,
      "--wait",
      "--json",
    ]);
    expect(outcome.stderr).toBe("");
    expect(outcome.code).toBe(0);
    const result = RunResult.parse(JSON.parse(outcome.stdout));
    expect(result).toMatchObject({
      agent: SCRIPTED_CITY,
      status: "succeeded",
      output: { city: "Oslo", population: 709_000 },
      steps: 1,
    });
  });

  it("exits 1 when the run fails, printing why", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      SILENT_INPUT,
      "--schema",
      schemaArg,
      "--wait",
      "--json",
    ]);
    expect(outcome.code).toBe(1);
    const result = RunResult.parse(JSON.parse(outcome.stdout));
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("no_structured_output");
  });

  it("fires --count runs and prints every RunResult", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      recordingInput("Lima", 10_000_000),
      "--schema",
      schemaArg,
      "--count",
      "3",
      "--wait",
      "--json",
    ]);
    expect(outcome.code).toBe(0);
    const results = RunResult.array().parse(JSON.parse(outcome.stdout));
    expect(results).toHaveLength(3);
    expect(new Set(results.map((r) => r.runId)).size).toBe(3);
    expect(results.every((r) => r.status === "succeeded")).toBe(true);
  });

  it("shows a table and the counts to people", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      recordingInput("Quito", 2_800_000),
      "--schema",
      schemaArg,
      "--count",
      "2",
      "--wait",
    ]);
    expect(outcome.code).toBe(0);
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^run +status +output or error +steps$/);
    expect(
      lines.filter((line) => line.includes('{"city":"Quito","population":2800000}')),
    ).toHaveLength(2);
    expect(lines.at(-1)).toBe("2 runs: 2 succeeded, 0 failed, 0 cancelled");
  });
});

describe("errand fire --wait --timeout", () => {
  it("gives up on a run still going, names it, and exits 1", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      SLOW_INPUT,
      "--wait",
      "--timeout",
      "1",
      "--json",
    ]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe("");
    const runId = /still going after 1s: (\S+)/.exec(outcome.stderr)?.[1];
    expect(runId).toMatch(/^R/);
    const cancelled = await errand(["runs", "cancel", runId!, "--json"]);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ runId, requested: true });
  });
});

describe("errand fire of an agent whose workers are all gone", () => {
  /** The warning of a run of greeter, whose only worker stopped at `stoppedAt`. */
  function noLiveGreeter(stoppedAt: string): string {
    return `no live worker for greeter since ${stoppedAt.slice(11, 16)} UTC: the run waits until one starts`;
  }

  it("fires the run all the same, warns on stderr and in --json, and names the gone worker when --wait gives up", async () => {
    const worker = await spawnErrand(
      ["worker", "--agents", GREETER_AGENTS, "--prefix", prefix],
      { REDIS_URL: server.url },
      "worker ready",
    );
    expect(await worker.stop()).toBe(0);
    const [record] = Object.values(await redis.hgetall(keys.agentRegistry("greeter")));
    const { stoppedAt } = JSON.parse(record!) as { stoppedAt: string };
    const warning = noLiveGreeter(stoppedAt);

    const fired = await errand(["fire", "greeter", "--input", '"Ada"', "--json"]);
    expect(fired.code, fired.stderr).toBe(0);
    const answer = JSON.parse(fired.stdout);
    expect(answer).toEqual({
      runId: answer.runId,
      warnings: [{ code: "no_live_worker", message: warning }],
    });
    expect(fired.stderr).toBe(
      `errand: warning: ${warning} (start one: errand worker --agents <module>)\n`,
    );
    expect(await redis.exists(keys.runLog(answer.runId))).toBe(1);

    const waited = await errand(["fire", "greeter", "--input", '"Bo"', "--wait", "--timeout", "1"]);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toMatch(
      new RegExp(`still going after 1s: R\\S+; when fired, ${warning.replaceAll(".", "\\.")}\n$`),
    );
  });
});

describe("errand fire --metadata and --deadline", () => {
  it("keeps every --metadata label and the deadline in the run's run-queued event", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      recordingInput("Kyiv", 2_900_000),
      "--schema",
      schemaArg,
      "--metadata",
      "team=cities",
      "--metadata",
      "query=population=latest",
      "--metadata",
      "note=",
      "--deadline",
      "600",
      "--wait",
      "--json",
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { runId } = RunResult.parse(JSON.parse(outcome.stdout));
    const events = await errand(["runs", "events", runId, "--json"]);
    const [queued] = RunEvent.array().parse(JSON.parse(events.stdout));
    expect(queued?.type).toBe("run-queued");
    if (queued?.type !== "run-queued") return;
    expect(queued.data.metadata).toEqual({ team: "cities", query: "population=latest", note: "" });
    const deadlineAt = queued.data.limits.deadlineAt;
    expect(deadlineAt).toBeDefined();
    expect(Date.parse(deadlineAt!) - Date.parse(queued.at)).toBe(600_000);
  });

  it("fails a run still going at its deadline with deadline_exceeded", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      SLOW_INPUT,
      "--deadline",
      "1",
      "--wait",
      "--json",
    ]);
    expect(outcome.code).toBe(1);
    const result = RunResult.parse(JSON.parse(outcome.stdout));
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("deadline_exceeded");
  });
});

describe("errand fire without --wait", () => {
  it("prints the runId at once", async () => {
    const outcome = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      recordingInput("Rome", 2_700_000),
      "--schema",
      schemaArg,
      "--json",
    ]);
    expect(outcome.code).toBe(0);
    const answer = JSON.parse(outcome.stdout);
    expect(answer).toEqual({ runId: answer.runId }); // no dashboard URL: no viewUrl
    expect(await redis.exists(keys.runLog(answer.runId))).toBe(1);
  });
});

describe("errand fire --idempotency-key, --priority and --concurrency-key", () => {
  it("fires once per key, printing the run fired before with deduplicated: true, and keeps the priority and concurrency key", async () => {
    const fire = () =>
      errand([
        "fire",
        SCRIPTED_CITY,
        "--input",
        recordingInput("Oslo", 700_000),
        "--schema",
        schemaArg,
        "--idempotency-key",
        "oslo-once",
        "--priority",
        "3",
        "--concurrency-key",
        "tenant-oslo",
        "--json",
      ]);
    const first = await fire();
    expect(first.code, first.stderr).toBe(0);
    const { runId } = JSON.parse(first.stdout);
    expect(JSON.parse(first.stdout)).toEqual({ runId });
    const again = await fire();
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ runId, deduplicated: true });

    const events = await errand(["runs", "events", runId, "--json"]);
    const [queued] = RunEvent.array().parse(JSON.parse(events.stdout));
    expect(queued).toMatchObject({
      type: "run-queued",
      data: { priority: 3, concurrencyKey: "tenant-oslo" },
    });
  });

  it("pins a run to an agent version with --agent-version, and refuses one nobody ran with exit 2", async () => {
    const base = ["fire", SCRIPTED_CITY, "--input", recordingInput("Bern", 134_000), "--json"];
    const first = await errand(base);
    expect(first.code, first.stderr).toBe(0);
    const events = await errand(["runs", "events", JSON.parse(first.stdout).runId, "--json"]);
    const [queued] = RunEvent.array().parse(JSON.parse(events.stdout));
    const version = queued?.type === "run-queued" ? queued.data.agentVersion : undefined;
    expect(version).toMatch(/^h[0-9a-f]{12}$/);

    const pinned = await errand([...base, "--agent-version", version ?? ""]);
    expect(pinned.code, pinned.stderr).toBe(0);
    const unknown = await errand([...base, "--agent-version", "never-deployed"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/agent_version_unavailable|never-deployed/);
  });

  it("refuses a key with --count, and a priority out of range, with exit 2", async () => {
    const base = ["fire", SCRIPTED_CITY, "--input", "null"];
    const withCount = await errand([...base, "--idempotency-key", "k", "--count", "2"]);
    expect(withCount.code).toBe(2);
    expect(withCount.stderr).toMatch(/--idempotency-key fires one run/);
    const outOfRange = await errand([...base, "--priority", "2097152"]);
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toMatch(/--priority/);
  });
});

describe("errand fire --budget", () => {
  it("fires the run with its budget, and runs show prints what it and its tree spent and have left", async () => {
    const fired = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      recordingInput("Riga", 605_000),
      "--schema",
      schemaArg,
      "--budget",
      '{"tokens":1000000,"steps":5}',
      "--wait",
      "--json",
    ]);
    expect(fired.code, fired.stderr).toBe(0);
    const result = RunResult.parse(JSON.parse(fired.stdout));
    const tokens = result.usage.inputTokens + result.usage.outputTokens;
    expect(result.budget).toMatchObject({
      scopeRunId: result.runId,
      limits: { tokens: 1_000_000, steps: 5 },
      onExceeded: "finish-in-flight",
      run: { tokens, steps: result.steps },
      tree: { spent: { tokens, steps: result.steps }, remaining: { steps: 5 - result.steps } },
    });

    const shown = await errand(["runs", "show", result.runId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/budget\s+tokens 1000000, steps 5 \(finish-in-flight/);
    expect(shown.stdout).toMatch(
      new RegExp(`tree spent\\s+tokens ${tokens}, steps ${result.steps}`),
    );
    expect(shown.stdout).toMatch(
      new RegExp(`remaining\\s+tokens ${1_000_000 - tokens}, steps ${5 - result.steps}`),
    );
  });

  it("refuses a budget that limits nothing, or is not JSON, with exit 2", async () => {
    const base = ["fire", SCRIPTED_CITY, "--input", "null"];
    const empty = await errand([...base, "--budget", '{"onExceeded":"cancel-tree"}']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--budget is not a budget: a budget limits at least one/);
    const notJson = await errand([...base, "--budget", "tokens=5"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--budget/);
  });
});

describe("errand with ERRAND_DASHBOARD_URL", () => {
  const dashboard = "http://127.0.0.1:4040/errand";
  const viewUrlOf = (runId: string) => `${dashboard}/#/runs/${runId}`;
  const linked = (args: readonly string[], url = dashboard) =>
    runErrand([...args, "--prefix", prefix], {
      env: { REDIS_URL: server.url, ERRAND_DASHBOARD_URL: url },
    });
  const fireArgs = (city: string) => [
    "fire",
    SCRIPTED_CITY,
    "--input",
    recordingInput(city, 1_000),
    "--schema",
    schemaArg,
  ];

  it("links each run of fire --json, with --count and with --wait, to its dashboard page", async () => {
    const one = await linked([...fireArgs("Oslo"), "--json"]);
    expect(one.code, one.stderr).toBe(0);
    const fired = JSON.parse(one.stdout);
    expect(fired).toEqual({ runId: fired.runId, viewUrl: viewUrlOf(fired.runId) });

    const many = await linked([...fireArgs("Lima"), "--count", "2", "--json"]);
    const batch = JSON.parse(many.stdout) as { results: { runId: string; viewUrl: string }[] };
    expect(batch.results.map((item) => item.viewUrl)).toEqual(
      batch.results.map((item) => viewUrlOf(item.runId)),
    );

    const waited = await linked([...fireArgs("Rome"), "--wait", "--json"]);
    expect(waited.code, waited.stderr).toBe(0);
    const result = JSON.parse(waited.stdout);
    expect(result).toMatchObject({ status: "succeeded", viewUrl: viewUrlOf(result.runId) });
  });

  it("links the run of runs show and the runs of runs list", async () => {
    const waited = await linked([...fireArgs("Bern"), "--wait", "--json"]);
    const { runId } = JSON.parse(waited.stdout);
    const shown = await linked(["runs", "show", runId, "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ runId, viewUrl: viewUrlOf(runId) });
    const table = await linked(["runs", "show", runId]);
    expect(table.stdout).toContain(viewUrlOf(runId));
    const listed = await linked(["runs", "list", "--json"]);
    const items = JSON.parse(listed.stdout).items as { runId: string; viewUrl: string }[];
    expect(items.find((item) => item.runId === runId)?.viewUrl).toBe(viewUrlOf(runId));
  });

  it("refuses a dashboard URL that is not absolute http(s) with exit code 2", async () => {
    const outcome = await linked([...fireArgs("Nowhere"), "--json"], "127.0.0.1:4040");
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(
      "ERRAND_DASHBOARD_URL: dashboardUrl must be the absolute http(s) URL",
    );
  });
});

describe("errand runs events --json, then runs fold --from-file", () => {
  it("reproduces the stored result byte for byte", async () => {
    const fired = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      JSON.stringify({
        script: [
          { call: [{ tool: "structured_output", args: { city: "Accra", population: "many" } }] },
          { call: [{ tool: "structured_output", args: { city: "Accra", population: 2_500_000 } }] },
        ],
      }),
      "--schema",
      schemaArg,
      "--wait",
      "--json",
    ]);
    expect(fired.code).toBe(0);
    const { runId } = JSON.parse(fired.stdout);
    const events = await errand(["runs", "events", runId, "--json"]);
    expect(events.code).toBe(0);
    const log = JSON.parse(events.stdout);
    expect(log.map((event: { type: string }) => event.type)).toContain("refused");
    const path = join(dir, "saved-log.json");
    await writeFile(path, events.stdout);
    const folded = await runErrand(["runs", "fold", "--from-file", path]);
    expect(folded.code).toBe(0);
    const stored = await redis.get(keys.result(runId));
    expect(stored).not.toBeNull();
    expect(JSON.parse(folded.stdout)).toEqual(parseStoredResult(runId, stored ?? ""));
  });
});
