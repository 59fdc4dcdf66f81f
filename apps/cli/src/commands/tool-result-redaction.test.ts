/**
 * A secret in a tool result too large to keep inline shows in no output:
 * a real worker on a real Redis runs a tool answering
 * `{ apiKey: "sk-tool-777", blob: <44 KB> }`, whose result the log keeps as a
 * cut preview (JSON text) and a blob; then `errand runs events --json`, the
 * dashboard's API behind the run page (`/api/runs/:id`, its events whole and
 * one by one, its blob, tree and waterfall), the page itself and the
 * worker's log lines are all read for the key.
 */
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrandProcess, spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const AGENTS = new URL("../test-support/secret-report-agents.mjs", import.meta.url).pathname;
const SECRET = "sk-tool-777";

const prefix = uniqueKeyPrefix("cli-tool-redaction");
let server: RedisServer;
let processes: ErrandProcess[] = [];
let dashboardUrl: string;

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  const env = { REDIS_URL: server.url, ERRAND_DASHBOARD_TOKEN: "" };
  processes = await Promise.all([
    spawnErrand(["collector", "--prefix", prefix], env, "collector ready"),
    spawnErrand(["worker", "--agents", AGENTS, "--prefix", prefix], env, "worker ready"),
    spawnErrand(["dashboard", "--port", "0", "--prefix", prefix], env, "Ctrl-C to stop."),
  ]);
  const printed = /errand dashboard: (http:\/\/\S+)/.exec(processes[2]!.output())?.[1];
  if (printed === undefined) throw new Error(`no dashboard URL:\n${processes[2]!.output()}`);
  dashboardUrl = printed;
});

afterAll(async () => {
  await Promise.all(processes.map((process) => process.stop()));
  await server?.stop();
});

async function fetchText(path: string): Promise<string> {
  const answer = await fetch(`${dashboardUrl}${path}`);
  expect(answer.status, path).toBe(200);
  return answer.text();
}

describe("a secret in a tool result cut for size", () => {
  it("shows in no output: the CLI's events, the dashboard's API and page, the worker's log", async () => {
    const script = [{ call: [{ tool: "fetch_report", args: {} }] }, { say: "Fetched." }];
    const fired = await runErrand(
      [
        "fire",
        "secret-report",
        "--input",
        JSON.stringify({ script }),
        "--wait",
        "--json",
        "--prefix",
        prefix,
      ],
      { env: { REDIS_URL: server.url } },
    );
    expect(fired.code, fired.stderr).toBe(0);
    const { runId, status } = JSON.parse(fired.stdout);
    expect(status).toBe("succeeded");

    const logged = await runErrand(["runs", "events", runId, "--json", "--prefix", prefix], {
      env: { REDIS_URL: server.url },
    });
    expect(logged.code).toBe(0);
    const events = JSON.parse(logged.stdout) as { seq: number; type: string; data: unknown }[];
    const toolResult = events.find((event) => event.type === "tool-result");
    // The result was cut and stored as a blob: this is the shape that leaked.
    expect(toolResult).toMatchObject({
      seq: 5,
      data: { ok: true, truncated: true, ref: { contentType: "application/json" } },
    });
    expect(toolResult?.data).toHaveProperty("result", expect.stringContaining('"apiKey":"['));

    const run = `/api/runs/${runId}`;
    const outputs = {
      cli: logged.stdout,
      fire: fired.stdout,
      detail: await fetchText(run),
      events: await fetchText(`${run}/events`),
      event5: await fetchText(`${run}/events/5`),
      blob: await fetchText(`${run}/blobs/0`),
      tree: await fetchText(`${run}/tree`),
      waterfall: await fetchText(`${run}/waterfall`),
      page: await fetchText(`/#/runs/${runId}`),
      workerLog: processes[1]!.output(),
    };
    expect(JSON.parse(outputs.event5)).toMatchObject({ seq: 5, type: "tool-result" });
    expect(JSON.parse(outputs.blob)).toMatchObject({ json: { apiKey: "[redacted]" } });
    for (const [where, text] of Object.entries(outputs)) {
      expect(text.includes(SECRET), `${where} shows the secret`).toBe(false);
    }
  });
});
