import { readFile } from "node:fs/promises";
import { RunEvent, RunResult } from "@errand/core";
import { type RedisServer, startRedis } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, spawnErrand } from "./test-support/processes.js";
import { runErrand } from "./test-support/run-errand.js";
import { shellWords } from "./test-support/shell-words.js";

const README = new URL("../README.md", import.meta.url);

/** The words of the first `sh` block after the heading `heading` in the README. */
async function readmeCommand(heading: string): Promise<string[]> {
  const text = await readFile(README, "utf8");
  const section = text.indexOf(`\n${heading}\n`);
  expect(section, `the README has a section ${heading}`).toBeGreaterThan(-1);
  const start = text.indexOf("```sh\n", section) + "```sh\n".length;
  const end = text.indexOf("\n```", start);
  return shellWords(text.slice(start, end));
}

// The README's example as a newcomer meets it: `errand up` on a Redis, the
// command pasted in another shell with REDIS_URL exported.
let server: RedisServer;
let up: ErrandProcess;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  up = await spawnErrand(["up", "--no-dashboard"], { REDIS_URL: server.url }, "Ctrl-C to stop.");
});

afterAll(async () => {
  await up?.stop("SIGINT");
  await server?.stop();
});

describe("the README's scripted run (input.script)", () => {
  it("runs under errand up as the README says: refused once, then recorded, in 2 steps", async () => {
    const [program, ...args] = await readmeCommand("## Scripted runs: `input.script`");
    expect(program).toBe("errand");
    expect(args.slice(0, 2)).toEqual(["fire", "demo-child"]);
    const outcome = await runErrand(args, { env: { REDIS_URL: server.url } });
    expect(outcome.code, outcome.stderr).toBe(0);
    const result = RunResult.parse(JSON.parse(outcome.stdout));
    expect(result).toMatchObject({
      status: "succeeded",
      output: { city: "Oslo", population: 709_000 },
      steps: 2,
    });
    const events = await runErrand(["runs", "events", result.runId, "--json"], {
      env: { REDIS_URL: server.url },
    });
    const log = RunEvent.array().parse(JSON.parse(events.stdout));
    expect(log.filter((event) => event.type === "refused")).toHaveLength(1);
  });
});
