/**
 * On a worker given a dashboard URL, the children in the answers of
 * `spawn_agents` and `collect_agents` carry their `viewUrl`, as the parent's
 * model reads them in its log.
 */
import { describe, expect } from "vitest";
import type { CollectResult } from "../reads/collect.js";
import { parentTest } from "../test-support/engine-test.js";
import type { SpawnResult } from "./spawn-children.js";
import { CHILD, LEAD } from "./test-support/parent-fixture.js";

const it = parentTest("children-view-url");

const DASHBOARD = "http://127.0.0.1:4040/";

describe("the parent tools on a worker given a dashboard URL", () => {
  it("link every child they answer with to its page on the dashboard", async ({ pfx }) => {
    const { fx } = pfx;
    await pfx.startWorker({ concurrency: 2, dashboardUrl: DASHBOARD });
    const agents = [1, 2].map((n) => ({
      agent: CHILD,
      input: { script: [{ say: `child ${n}` }] },
    }));
    const { runId: parent } = await fx.errand.fire({
      agent: LEAD,
      input: {
        script: [
          {
            call: [
              {
                tool: "spawn_agents",
                args: { agents: [...agents, { agent: "nobody", input: null }] },
              },
            ],
          },
          { call: [{ tool: "collect_agents", args: { wait: true } }] },
          { say: "collected" },
        ],
      },
    });
    await fx.waitForEvent(parent);

    const [spawned] = (await pfx.toolResults(parent, "spawn_agents")) as SpawnResult[];
    const childIds = spawned!.results.flatMap((child) => (child.ok ? [child.runId!] : []));
    expect(childIds).toHaveLength(2);
    expect(spawned!.results).toEqual([
      ...childIds.map((runId) => ({
        ok: true,
        runId,
        agent: CHILD,
        viewUrl: `http://127.0.0.1:4040/#/runs/${runId}`,
      })),
      expect.not.objectContaining({ viewUrl: expect.anything() }),
    ]);

    const [collected] = (await pfx.toolResults(parent, "collect_agents")) as CollectResult[];
    expect(collected).toMatchObject({ total: 2, succeeded: 2, pending: 0 });
    expect(collected!.results.map((child) => [child.runId, child.viewUrl])).toEqual(
      [...childIds].sort().map((runId) => [runId, `http://127.0.0.1:4040/#/runs/${runId}`]),
    );
  });
});
