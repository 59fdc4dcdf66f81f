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

function errand(args: readonly string[], env: Record<string, string> = {}, terminal = false) {
  return runErrand([...args, "--prefix", prefix], {
    env: { REDIS_URL: server.url, ...env },
    terminal,
  });
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

/** A tree node as the tests compare it: what it is, not which runId it got. */
interface Shape {
  agent: string;
  status: string;
  code?: string;
  children: Shape[];
}

function shapeOf(node: {
  agent: string;
  status: string;
  error?: { code: string };
  children: unknown[];
}): Shape {
  const children = (node.children as (typeof node)[]).map(shapeOf);
  children.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    agent: node.agent,
    status: node.status,
    ...(node.error === undefined ? {} : { code: node.error.code }),
    children,
  };
}

describe("errand runs tree", () => {
  it("--json nests every descendant under its parent, with statuses and error codes", async () => {
    const outcome = await errand(["runs", "tree", root.runId, "--json"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const tree = JSON.parse(outcome.stdout);
    expect(tree).toMatchObject({ runId: root.runId, rootRunId: root.runId });
    const succeededCity: Shape = { agent: SCRIPTED_CITY, status: "succeeded", children: [] };
    expect(shapeOf(tree)).toEqual(
      shapeOf({
        agent: SCRIPTED_PARENT,
        status: "succeeded",
        children: [
          succeededCity,
          succeededCity,
          succeededCity,
          {
            agent: SCRIPTED_CITY,
            status: "failed",
            error: { code: "no_structured_output" },
            children: [],
          },
          { agent: SCRIPTED_PARENT, status: "succeeded", children: [succeededCity] },
        ],
      }),
    );
    for (const child of tree.children) expect(child.parentRunId).toBe(root.runId);
  });

  it("draws the tree with box-drawing branches, plain when piped", async () => {
    const outcome = await errand(["runs", "tree", root.runId]);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).not.toContain("\x1b[");
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(`${root.runId}  ${SCRIPTED_PARENT}  succeeded`);
    const children = lines.filter((line) => /^[├└]── /.test(line));
    expect(children.map((line) => line.slice(0, 4))).toEqual([
      "├── ",
      "├── ",
      "├── ",
      "├── ",
      "└── ",
    ]);
    expect(children).toContainEqual(
      expect.stringMatching(/^[├└]── R\S+ {2}scripted-city {2}failed \(no_structured_output\)$/),
    );
    const nestedParent = lines.findIndex((line) => /^[├└]── R\S+ {2}scripted-parent /.test(line));
    expect(nestedParent).toBeGreaterThan(0);
    const grandchild = lines[nestedParent + 1];
    const indent = lines[nestedParent]?.startsWith("└── ") ? "    " : "│   ";
    expect(grandchild).toMatch(new RegExp(`^${indent}└── R\\S+ {2}scripted-city {2}succeeded$`));
  });

  it("colours the statuses on a terminal, unless NO_COLOR is set", async () => {
    const coloured = await errand(["runs", "tree", root.runId], {}, true);
    expect(coloured.code, coloured.stdout).toBe(0);
    expect(coloured.stdout).toContain("\x1b[32msucceeded\x1b[39m");
    expect(coloured.stdout).toContain("\x1b[31mfailed (no_structured_output)\x1b[39m");
    const plain = await errand(["runs", "tree", root.runId], { NO_COLOR: "1" }, true);
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).not.toContain("\x1b[");
    expect(plain.stdout).toContain(`${root.runId}  ${SCRIPTED_PARENT}  succeeded`);
  });

  it("exits 1 for a run that does not exist and 2 for a malformed id", async () => {
    const missing = await errand(["runs", "tree", "R0000000000000000000000000000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/R0000000000000000000000000000/);
    const malformed = await errand(["runs", "tree", "not-a-run"]);
    expect(malformed.code).toBe(2);
  });
});
