import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunResult } from "@errand/core";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { recordingInput, writeCitySchema } from "../test-support/city.js";
import { spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

async function answersPing(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

describe("errand up", () => {
  it("runs the demo agents on a private Redis until Ctrl-C, then removes it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "errand-cli-up-"));
    const up = await spawnErrand(
      ["up", "--dashboard-port", "0"],
      { REDIS_URL: "" },
      "Ctrl-C to stop.",
    );
    try {
      const url = /REDIS_URL=(\S+)/.exec(up.output())?.[1];
      expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(up.output()).toContain("agents: demo-child, demo-parent on the scripted model");
      const dashboardUrl = /ERRAND_DASHBOARD_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(
        up.output(),
      )?.[1];
      expect(dashboardUrl).toBeDefined();
      const fired = await runErrand(
        [
          "fire",
          "demo-child",
          "--input",
          recordingInput("Oslo", 709_000),
          "--schema",
          await writeCitySchema(dir),
          "--wait",
          "--json",
        ],
        { env: { REDIS_URL: url } },
      );
      expect(fired.code, fired.stderr).toBe(0);
      const result = RunResult.parse(JSON.parse(fired.stdout));
      expect(result.output).toEqual({ city: "Oslo", population: 709_000 });
      const shown = await fetch(`${dashboardUrl}/api/runs/${result.runId}`);
      expect(shown.status).toBe(200);
      expect(JSON.stringify(await shown.json())).toContain(result.runId);

      // Its worker links the children a parent spawns to the dashboard it serves.
      const spawning = JSON.stringify({
        script: [
          {
            call: [
              {
                tool: "spawn_agents",
                args: {
                  agents: [
                    { agent: "demo-child", input: JSON.parse(recordingInput("Bergen", 291_000)) },
                  ],
                },
              },
            ],
          },
          { say: "spawned" },
        ],
      });
      const parent = await runErrand(
        ["fire", "demo-parent", "--input", spawning, "--wait", "--json"],
        {
          env: { REDIS_URL: url },
        },
      );
      expect(parent.code, parent.stderr).toBe(0);
      const parentRunId = RunResult.parse(JSON.parse(parent.stdout)).runId;
      const events = await runErrand(["runs", "events", parentRunId, "--json"], {
        env: { REDIS_URL: url },
      });
      const spawned = (
        JSON.parse(events.stdout) as { type: string; data: { result?: unknown } }[]
      ).find((event) => event.type === "tool-result")?.data.result as {
        results: { runId: string; viewUrl?: string }[];
      };
      const [child] = spawned.results;
      expect(child?.viewUrl).toBe(`${dashboardUrl}/#/runs/${child?.runId}`);
      expect(await up.stop("SIGINT")).toBe(0);
      expect(await answersPing(url!)).toBe(false);
    } finally {
      await up.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
