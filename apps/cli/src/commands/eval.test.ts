/**
 * `errand eval`, spawned as a user runs it, on runs a real worker and
 * collector recorded on a private Redis: `eval run` evaluates a candidate
 * from an agents module (progress on a terminal, the record with --json),
 * `eval list` and `eval show` read it back, `eval export` writes it as
 * JUnit XML that a JUnit reader parses; `eval sets save` saves the runs
 * under a name that `eval run --set` then takes, here with `--fleet`: the
 * live worker's version evaluated on the fleet, a version with no live
 * worker refused.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCollector, createErrand, createWorker, type Errand } from "@errand/engine";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { noopLogger } from "@errand/runtime/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { parse } from "test-results-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runErrand } from "../test-support/run-errand.js";

const CANDIDATE = fileURLToPath(
  new URL("../test-support/greeter-candidate-agents.mjs", import.meta.url),
);
const prefix = uniqueKeyPrefix("cli-eval");
const RUNS = 3;

/** The recorded version: greeter-candidate-agents.mjs holds the candidate. */
const greeter = defineAgent({
  name: "greeter",
  instructions: "Greet the person you are given.",
  model: scriptedModel(),
  script: [{ say: "Hello!" }],
  maxSteps: 2,
});

let server: RedisServer;
let client: Errand;
let stopEngine: () => Promise<void>;
let dir: string;
let runIds: string[];

function errand(args: readonly string[], terminal = false) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url }, terminal });
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  dir = await mkdtemp(join(tmpdir(), "errand-cli-eval-"));
  const quiet = { connection: server.url, prefix, logger: noopLogger };
  const worker = await createWorker({ ...quiet, agents: [greeter] });
  const collector = createCollector(quiet);
  await collector.start();
  client = createErrand({ connection: server.url, prefix });
  stopEngine = async () => {
    await worker.close();
    await collector.stop();
    await client.close();
  };
  const fired = await client.fireMany(
    Array.from({ length: RUNS }, (_, n) => ({ agent: "greeter", input: `person ${n}` })),
  );
  runIds = fired.results.map((r) => r.runId!);
  expect((await client.collect(runIds, { waitMs: 30_000 })).succeeded).toBe(RUNS);
});

afterAll(async () => {
  await stopEngine?.();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("errand eval", () => {
  let evaluationId: string;

  it("run: shows progress on a terminal and prints the evaluation", async () => {
    const shown = await errand(
      ["eval", "run", "--agents", CANDIDATE, "--from-agent", "greeter"],
      true,
    );
    expect(shown.code, shown.stdout).toBe(0);
    expect(shown.stdout).toContain(`${RUNS}/${RUNS} cases · ${RUNS} changed · 0 failed`);
    expect(shown.stdout).toMatch(/candidate +greeter@\S+, tools recorded, unrecorded calls refuse/);
  });

  it("run --json: prints the record, every case changed", async () => {
    const outcome = await errand([
      "eval",
      "run",
      "--agents",
      CANDIDATE,
      ...runIds.flatMap((id) => ["--run", id]),
      "--json",
    ]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const record = JSON.parse(outcome.stdout);
    expect(record).toMatchObject({
      status: "finished",
      totals: { cases: RUNS, changed: RUNS, failed: 0 },
    });
    expect(record.cases[0]).toMatchObject({
      original: { text: "Hello!" },
      candidate: { text: "Hello there, welcome!" },
    });
    evaluationId = record.evaluationId;
  });

  it("list and show read it back", async () => {
    const listed = JSON.parse((await errand(["eval", "list", "--json"])).stdout);
    expect(listed.items.map((e: { evaluationId: string }) => e.evaluationId)).toContain(
      evaluationId,
    );
    expect(listed.count).toBe(2);
    const shown = await errand(["eval", "show", evaluationId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`cases      ${RUNS} of ${RUNS} · ${RUNS} changed · 0 failed`);
    for (const runId of runIds) expect(shown.stdout).toContain(runId);
  });

  it("export: JUnit XML a JUnit reader parses", async () => {
    const file = join(dir, "evaluation.xml");
    const exported = await errand([
      "eval",
      "export",
      evaluationId,
      "--format",
      "junit",
      "--changed-fails",
      "--out",
      file,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const result = parse({ type: "junit", files: [file] });
    expect(result.total).toBe(RUNS);
    expect(result.failed).toBe(RUNS);
    expect(result.suites[0]!.cases.map((c) => c.name).sort()).toEqual([...runIds].sort());
  });
});

describe("errand eval sets and eval run --fleet", () => {
  it("save and show a set, evaluate it on the live worker's version, refuse a version with none", async () => {
    const saved = await errand(["eval", "sets", "save", "greetings", "--from-agent", "greeter"]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`runs       ${RUNS}`);
    const shown = JSON.parse(
      (await errand(["eval", "sets", "show", "greetings", "--json"])).stdout,
    );
    expect([...shown.runIds].sort()).toEqual([...runIds].sort());
    const listed = await errand(["eval", "sets", "list"]);
    expect(listed.stdout).toMatch(/greetings +3 +filter/);

    const evaluated = await errand([
      "eval",
      "run",
      "--fleet",
      "--agent",
      "greeter",
      "--set",
      "greetings",
      "--json",
    ]);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const record = JSON.parse(evaluated.stdout);
    expect(record).toMatchObject({
      runs: { set: "greetings" },
      runIds: shown.runIds,
      candidate: { agent: "greeter", runsOn: "fleet" },
      totals: { cases: RUNS, changed: 0, failed: 0 },
    });

    const refused = await errand([
      "eval",
      "run",
      "--fleet",
      "--agent",
      "greeter",
      "--version",
      "gone",
      "--set",
      "greetings",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`no worker of version "gone" of agent "greeter" is live`);
  });

  it("--durability replicated with no replica: stops at the first case no replica confirmed; --resume finishes on that case's run", async () => {
    const fleet = ["eval", "run", "--fleet", "--agent", "greeter", "--concurrency", "1"];
    const refused = await errand([...fleet, "--run", runIds[0]!, "--durability", "replicated"]);
    expect(refused.code, refused.stderr).toBe(3);
    const caseRunId = /run (\S+) was fired but is not confirmed on a replica/.exec(
      refused.stderr,
    )?.[1];
    expect(caseRunId, refused.stderr).toBeDefined();
    const evaluationId =
      /finish it with errand eval run --fleet --agent greeter --resume (\S+)/.exec(
        refused.stderr,
      )?.[1];
    expect(evaluationId, refused.stderr).toBeDefined();

    const resumed = await errand([
      ...fleet,
      "--resume",
      evaluationId!,
      "--durability",
      "acknowledged",
      "--json",
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const record = JSON.parse(resumed.stdout);
    expect(record).toMatchObject({ status: "finished", totals: { cases: 1, failed: 0 } });
    // The refused fire left its run on the master: it ran, and is the case's run.
    const caseRun = await errand(["runs", "show", caseRunId!, "--json"]);
    expect(caseRun.code, caseRun.stderr).toBe(0);
    expect(JSON.parse(caseRun.stdout)).toMatchObject({ agent: "greeter", status: "succeeded" });
  });

  it("--durability applies to --fleet alone: refused with an agents module, exit 2", async () => {
    const refused = await errand([
      "eval",
      "run",
      "--agents",
      CANDIDATE,
      "--run",
      runIds[0]!,
      "--durability",
      "acknowledged",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--durability applies to the runs --fleet fires");
  });
});
