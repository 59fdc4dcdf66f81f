import { RunResult } from "@errand/core";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CITY_SCHEMA, recordingInput, SCRIPTED_CITY, SILENT_INPUT } from "../test-support/city.js";
import { startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";
import { shellWords } from "../test-support/shell-words.js";

// A family of runs: a scripted parent whose children are three cities that
// record an answer, one that does not, and a parent of one more city.
const SCRIPTED_PARENT = "scripted-parent";
const prefix = uniqueKeyPrefix("cli-tree");
let server: RedisServer;
let processes: Awaited<ReturnType<typeof startErrandProcesses>>;
let root: RunResult;

function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

function city(input: string) {
  return { agent: SCRIPTED_CITY, input: JSON.parse(input), outputSchema: CITY_SCHEMA };
}

/** The input of a scripted parent that spawns `children`, collects them and says so. */
function parentOf(children: readonly unknown[]) {
  return {
    script: [
      { call: [{ tool: "spawn_agents", args: { agents: children } }] },
      { call: [{ tool: "collect_agents", args: { wait: true } }] },
      { say: "Collected." },
    ],
  };
}

const FAMILY = parentOf([
  city(recordingInput("Oslo", 709_000)),
  city(recordingInput("Lima", 10_000_000)),
  city(recordingInput("Quito", 2_800_000)),
  city(SILENT_INPUT),
  { agent: SCRIPTED_PARENT, input: parentOf([city(recordingInput("Hanoi", 8_000_000))]) },
]);

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  processes = await startErrandProcesses(server.url, prefix);
  const fired = await errand([
    "fire",
    SCRIPTED_PARENT,
    "--input",
    JSON.stringify(FAMILY),
    "--wait",
    "--json",
  ]);
  expect(fired.code, fired.stderr).toBe(0);
  root = RunResult.parse(JSON.parse(fired.stdout));
});

afterAll(async () => {
  await processes?.stop();
  await server?.stop();
});

describe("errand runs list's next-page hint", () => {
  it("keeps the filters and the page size: the hinted command prints the next page", async () => {
    const first = await errand([
      "runs",
      "list",
      "--parent",
      root.runId,
      "--agent",
      SCRIPTED_CITY,
      "--status",
      "succeeded",
      "--limit",
      "2",
    ]);
    expect(first.code, first.stderr).toBe(0);
    const hint = /^more: (.+)$/m.exec(first.stdout)?.[1];
    expect(hint).toBeDefined();
    const [program, ...words] = shellWords(hint!);
    expect(program).toBe("errand");
    const second = await runErrand(words, { env: { REDIS_URL: server.url } });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toMatch(/^more:/m);
    const rowsOf = (stdout: string) => stdout.split("\n").filter((line) => /^R\S+ /.test(line));
    const rows = [...rowsOf(first.stdout), ...rowsOf(second.stdout)];
    expect(rowsOf(first.stdout)).toHaveLength(2);
    expect(rows).toHaveLength(3); // Oslo, Lima and Quito: not the silent city, not the parent, not Hanoi
    for (const row of rows) expect(row).toMatch(/^R\S+ +scripted-city +succeeded /);
    expect(new Set(rows.map((row) => row.split(" ")[0])).size).toBe(3);
  });
});
