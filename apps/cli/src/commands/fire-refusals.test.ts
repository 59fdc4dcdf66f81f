import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingInput, SCRIPTED_CITY, writeCitySchema } from "../test-support/city.js";
import { spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

// A Redis of its own with nothing running on it, so that DBSIZE (or, once a worker ran, its keys) shows any write.
const prefix = uniqueKeyPrefix("cli-refusals");
let server: RedisServer;
let redis: Redis;
let dir: string;
let schemaArg: string;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  redis = new Redis(server.url);
  dir = await mkdtemp(join(tmpdir(), "errand-cli-refusals-"));
  schemaArg = await writeCitySchema(dir);
  await writeFile(join(dir, "broken.json"), '{"city": "Oslo",');
  await writeFile(
    join(dir, "open.schema.json"),
    JSON.stringify({ type: "object", properties: { city: { type: "string" } } }),
  );
});

/**
 * The keys of the Redis, sorted, bar a stopped worker's BullMQ stalled
 * check, which expires on its own while a slow command runs.
 */
async function keysBesideStalledChecks(): Promise<string[]> {
  return (await redis.keys("*")).filter((key) => !key.endsWith(":stalled-check")).sort();
}

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("errand fire refuses bad arguments before anything is enqueued", () => {
  it.each([
    ["--input that is not JSON", ["--input", "{city: Oslo}"], /--input is not valid JSON/],
    [
      "--input that is bare text",
      ["--input", "Ada"],
      /--input is not valid JSON: .* \(a text is a JSON string, in quotes: --input '"Ada"'\)/,
    ],
    [
      "--deadline with a negative value",
      ["--input", "{}", "--deadline", "-1"],
      /--deadline takes a value, and "-1" starts with a dash: give --deadline its value, or write --deadline=-1 if that is the value/,
    ],
    ["--deadline=-1", ["--input", "{}", "--deadline=-1"], /--deadline must be a whole number/],
    [
      "--input @file that is not JSON",
      ["--input", "@DIR/broken.json"],
      /--input \(.*broken\.json\) is not valid JSON/,
    ],
    ["--input @file that does not exist", ["--input", "@DIR/missing.json"], /--input: cannot read/],
    ["no --input", [], /fire: --input is required/],
    ["--count 0", ["--input", "{}", "--count", "0"], /--count must be a whole number from 1/],
    [
      "--metadata without =",
      ["--input", "{}", "--metadata", "team"],
      /--metadata takes key=value, not "team"/,
    ],
    ["--metadata with an empty key", ["--input", "{}", "--metadata", "=cities"], /empty key/],
    [
      "--metadata giving a key twice",
      ["--input", "{}", "--metadata", "team=a", "--metadata", "team=b"],
      /--metadata gives the key "team" twice/,
    ],
    ["--deadline 0", ["--input", "{}", "--deadline", "0"], /--deadline must be a whole number/],
    [
      "--deadline that is not a number",
      ["--input", "{}", "--deadline", "soon"],
      /--deadline must be a whole number/,
    ],
    [
      "--timeout without --wait",
      ["--input", "{}", "--timeout", "5"],
      /--timeout applies to --wait: add --wait/,
    ],
    [
      "a --schema outside the supported subset",
      ["--input", "{}", "--schema", "@DIR/open.schema.json"],
      /unsupported JSON schema/,
    ],
  ])("%s: exit 2, one line, DBSIZE unchanged", async (_label, extra, message) => {
    const before = await redis.dbsize();
    const args = extra.map((arg) => arg.replace("DIR", dir));
    const outcome = await runErrand(["fire", SCRIPTED_CITY, ...args, "--prefix", prefix], {
      env: { REDIS_URL: server.url },
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(await redis.dbsize()).toBe(before);
  });

  it("refuses an agent no worker runs with exit 2, DBSIZE unchanged", async () => {
    const before = await redis.dbsize();
    const outcome = await runErrand(
      [
        "fire",
        "nobody-runs-me",
        "--input",
        recordingInput("Oslo", 1),
        "--schema",
        schemaArg,
        "--prefix",
        prefix,
      ],
      { env: { REDIS_URL: server.url } },
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/agent "nobody-runs-me" is not registered/);
    expect(await redis.dbsize()).toBe(before);
  });
});

describe("errand fire of an input its agent's inputSchema refuses", () => {
  const DESCRIBED_AGENTS = fileURLToPath(
    new URL("../test-support/described-agents.mjs", import.meta.url),
  );

  it("exits 2 with the issues on one line, keys unchanged", async () => {
    const env = { REDIS_URL: server.url };
    const worker = await spawnErrand(
      ["worker", "--agents", DESCRIBED_AGENTS, "--prefix", prefix],
      env,
      "worker ready",
    );
    // Its registration outlives it: fire checks the input against the schema it registered.
    expect(await worker.stop()).toBe(0);
    const before = await keysBesideStalledChecks();
    const outcome = await runErrand(
      ["fire", "summarizer", "--input", '{"document": 7}', "--prefix", prefix],
      { env },
    );
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toBe(
      'errand: the input does not match agent "summarizer"\'s inputSchema: document: expected string, received number; sentences: expected number, received undefined; fix the input and send it again\n',
    );
    expect(await keysBesideStalledChecks()).toEqual(before);
  });
});

describe("errand fire of what the agent's model cannot take", () => {
  const CAPABLE_AGENTS = fileURLToPath(
    new URL("../test-support/capable-agents.mjs", import.meta.url),
  );
  const verdict = JSON.stringify({
    type: "object",
    properties: {
      verdict: {
        anyOf: [
          { type: "string", const: "yes" },
          { type: "string", const: "no" },
        ],
      },
    },
    required: ["verdict"],
    additionalProperties: false,
  });

  it("exits 2 for a schema its provider refuses and for settings it refuses, keys unchanged", async () => {
    const env = { REDIS_URL: server.url };
    const worker = await spawnErrand(
      ["worker", "--agents", CAPABLE_AGENTS, "--prefix", prefix],
      env,
      "worker ready",
    );
    // Its registration outlives it: fire checks against the capabilities it registered.
    expect(await worker.stop()).toBe(0);
    const before = await keysBesideStalledChecks();
    const schema = await runErrand(
      ["fire", "gemini-judge", "--input", "{}", "--schema", verdict, "--prefix", prefix],
      { env },
    );
    expect(schema.code).toBe(2);
    expect(schema.stdout).toBe("");
    expect(schema.stderr).toMatch(
      /^errand: agent gemini-judge: google cannot carry the JSON Schema keyword const within anyOf/,
    );
    const settings = await runErrand(
      [
        "fire",
        "claude-thinker",
        "--input",
        "{}",
        "--model-settings",
        '{"temperature":0.2}',
        "--prefix",
        prefix,
      ],
      { env },
    );
    expect(settings.code).toBe(2);
    expect(settings.stderr).toMatch(
      /^errand: agent claude-thinker: anthropic refuses temperature with reasoning\.effort/,
    );
    expect(await keysBesideStalledChecks()).toEqual(before);
  });
});
