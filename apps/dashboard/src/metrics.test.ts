/**
 * The dashboard's `GET /metrics`: Prometheus' text format, behind the
 * dashboard's token like the API, with each queue's jobs by state and the
 * collectors' gauges read from the deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CITY, cityAnswerSchema, slowChild } from "./test-support/agents.js";
import { waitFor } from "./test-support/wait-for.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

const TOKEN = "metrics-token-0123456789abcdef";
const SLOW_RUNS = 2;

let w: Workload;
let url: string;

beforeAll(async () => {
  w = await startWorkload("metrics");
  url = (await w.startDashboard({ token: TOKEN })).url;
});

afterAll(async () => {
  await w?.stop();
});

async function scrape(headers: Record<string, string> = {}) {
  const response = await fetch(new URL("/metrics", url), { headers });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    text: await response.text(),
  };
}

describe("GET /metrics on the dashboard", () => {
  it("asks for the token", async () => {
    expect((await scrape()).status).toBe(401);
  });

  it("answers the queue's jobs by state and the collectors' gauges", async () => {
    const runIds = await Promise.all(
      Array.from({ length: SLOW_RUNS }, async () => {
        const { runId } = await w.errand.fire({
          agent: CITY,
          input: { script: slowChild() },
          outputSchema: cityAnswerSchema,
        });
        return runId;
      }),
    );
    const active = `errand_queue_jobs{queue="${w.worker.queue}",state="active"} ${SLOW_RUNS}`;
    const scraped = await waitFor(`${active} on /metrics`, async () => {
      const answer = await scrape({ authorization: `Bearer ${TOKEN}` });
      return answer.text.split("\n").includes(active) ? answer : undefined;
    });
    expect(scraped.status).toBe(200);
    expect(scraped.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = scraped.text.split("\n");
    for (const state of ["waiting", "parked", "delayed"]) {
      expect(lines).toContain(`errand_queue_jobs{queue="${w.worker.queue}",state="${state}"} 0`);
    }
    expect(lines).toContain("errand_collector_dead_letters 0");
    expect(lines).toContain("# TYPE errand_collector_lag_entries gauge");
    expect(lines).toContain("# TYPE errand_redis_errors_total counter");

    for (const runId of runIds) await w.errand.cancel(runId);
    for (const runId of runIds) await w.waitForResult(runId);
  });
});
