/**
 * The CLI's `--json` output never carries a secret: a run fired with secrets
 * under every common spelling of their keys — in its input, its metadata and
 * its recorded output — reads back redacted from `fire --wait --json`,
 * `runs show --json`, `runs events --json` and `runs tail --json`, real
 * `errand` processes all (the same list the logs and the dashboard use).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REDACTED } from "@errand/core";
import { type RedisServer, SECRET_KEY_SAMPLES, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCRIPTED_CITY } from "../test-support/city.js";
import { startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const SECRETS = Object.fromEntries(SECRET_KEY_SAMPLES.map((key, i) => [key, `hidden-value-${i}`]));
const HIDDEN = Object.fromEntries(SECRET_KEY_SAMPLES.map((key) => [key, REDACTED]));

const prefix = uniqueKeyPrefix("cli-redaction");
let server: RedisServer;
let processes: Awaited<ReturnType<typeof startErrandProcesses>>;
let dir: string;

function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  processes = await startErrandProcesses(server.url, prefix);
  dir = await mkdtemp(join(tmpdir(), "errand-cli-redaction-"));
});

afterAll(async () => {
  await processes?.stop();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("--json output", () => {
  it("redacts every spelling of a secret's key, in what fire, runs show, runs events and runs tail print", async () => {
    const schemaPath = join(dir, "secrets.schema.json");
    const properties = Object.fromEntries(
      SECRET_KEY_SAMPLES.map((key) => [key, { type: "string" }]),
    );
    await writeFile(
      schemaPath,
      JSON.stringify({
        type: "object",
        properties,
        required: SECRET_KEY_SAMPLES,
        additionalProperties: false,
      }),
    );
    const input = {
      settings: SECRETS,
      script: [{ call: [{ tool: "structured_output", args: SECRETS }] }],
    };
    const metadata = SECRET_KEY_SAMPLES.flatMap((key) => ["--metadata", `${key}=${SECRETS[key]}`]);
    const fired = await errand([
      "fire",
      SCRIPTED_CITY,
      "--input",
      JSON.stringify(input),
      "--schema",
      `@${schemaPath}`,
      ...metadata,
      "--wait",
      "--json",
    ]);
    expect(fired.code).toBe(0);
    const result = JSON.parse(fired.stdout);
    expect(result).toMatchObject({ status: "succeeded", output: HIDDEN });

    const shown = await errand(["runs", "show", result.runId, "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ output: HIDDEN });

    const logged = await errand(["runs", "events", result.runId, "--json"]);
    const events = JSON.parse(logged.stdout);
    expect(events[0]).toMatchObject({
      type: "run-queued",
      data: { input: { settings: HIDDEN }, metadata: HIDDEN },
    });
    const tailed = await errand(["runs", "tail", result.runId, "--json"]);
    expect(tailed.code).toBe(0);

    for (const outcome of [fired, shown, logged, tailed]) {
      expect(outcome.stdout).not.toContain("hidden-value-");
    }
  });
});
