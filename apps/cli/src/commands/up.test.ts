import { once } from "node:events";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunResult } from "@errand/core";
import { describe, expect, it } from "vitest";
import { recordingInput } from "../test-support/city.js";
import { answersPing, printedRedisUrl } from "../test-support/private-redis.js";
import { spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

describe("errand up", () => {
  it("runs the demo agents on a private Redis until Ctrl-C, then removes it", async () => {
    const up = await spawnErrand(
      ["up", "--dashboard-port", "0"],
      { REDIS_URL: "" },
      "Ctrl-C to stop.",
    );
    try {
      const url = printedRedisUrl(up.output());
      expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(up.output()).toContain("agents: demo-child, demo-parent on the scripted model");
      const dashboardUrl = /ERRAND_DASHBOARD_URL=(http:\/\/127\.0\.0\.1:\d+)/.exec(
        up.output(),
      )?.[1];
      expect(dashboardUrl).toBeDefined();
      const fired = await runErrand(
        ["fire", "demo-child", "--input", recordingInput("Oslo", 709_000), "--wait", "--json"],
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
    }
  });

  it("links its runs to the dashboard's --public-url, behind a proxy", async () => {
    const up = await spawnErrand(
      ["up", "--dashboard-port", "0", "--public-url", "https://errand.example"],
      { REDIS_URL: "", ERRAND_DASHBOARD_TOKEN: "a-token-of-twenty-four-c" },
      "Ctrl-C to stop.",
    );
    try {
      expect(up.output()).toContain("ERRAND_DASHBOARD_URL=https://errand.example\n");
      expect(await up.stop("SIGINT")).toBe(0);
    } finally {
      await up.stop();
    }
  });

  it("refuses a dashboard port another process holds in one line naming --dashboard-port, exits 3, and removes its private Redis", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "errand-cli-up-port-"));
    const holder = createServer();
    holder.listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as AddressInfo;
    try {
      const up = await runErrand(["up", "--dashboard-port", String(port)], {
        env: { TMPDIR: tmp },
      });
      expect(up.code).toBe(3);
      expect(up.stderr.trimEnd().split("\n")).toEqual([
        expect.stringMatching(/^errand: .*127\.0\.0\.1:\d+.*--dashboard-port/),
      ]);
      expect(up.stderr).toContain(String(port));
      expect(up.stdout).not.toContain("Ctrl-C");
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      holder.close();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
