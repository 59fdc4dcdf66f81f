import { isErrandError, newRunId } from "@errand/core";
import { afterAll, describe, expect } from "vitest";
import { createErrand, type Errand } from "../client/client.js";
import { type Collector, createCollector } from "../collector/create-collector.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { runLinks, runViewUrl } from "./view-url.js";

const it = engineTest("view-url");

const RUN_ID = newRunId({
  shard: 3,
  nowMs: Date.parse("2026-03-01T00:00:00Z"),
  random: new Uint8Array(10),
});

describe("runViewUrl", () => {
  it("links the run's hash route under the dashboard's own path, with or without a trailing slash", () => {
    expect(runViewUrl("http://127.0.0.1:4040", RUN_ID)).toBe(
      `http://127.0.0.1:4040/#/runs/${RUN_ID}`,
    );
    expect(runViewUrl("http://127.0.0.1:4040/", RUN_ID)).toBe(
      `http://127.0.0.1:4040/#/runs/${RUN_ID}`,
    );
    expect(runViewUrl("https://ops.example/tools/errand", RUN_ID)).toBe(
      `https://ops.example/tools/errand/#/runs/${RUN_ID}`,
    );
    expect(runViewUrl("https://ops.example/tools/errand/", RUN_ID)).toBe(
      `https://ops.example/tools/errand/#/runs/${RUN_ID}`,
    );
  });

  it("keeps the dashboard URL's query and replaces its hash", () => {
    expect(runViewUrl("https://ops.example/errand/?team=7#/runs", RUN_ID)).toBe(
      `https://ops.example/errand/?team=7#/runs/${RUN_ID}`,
    );
  });

  it("refuses a dashboard URL that is not absolute http(s), where it is configured", () => {
    for (const bad of ["ops.example/errand", "/errand", "ftp://ops.example/errand", ""]) {
      const error = (() => {
        try {
          return runLinks(bad);
        } catch (caught) {
          return caught;
        }
      })();
      expect(isErrandError(error, "invalid_spec"), bad).toBe(true);
    }
  });

  it("links only run ids, and adds no field at all without a dashboard URL", () => {
    const links = runLinks("http://127.0.0.1:4040");
    expect(links.run({ runId: RUN_ID })).toEqual({
      runId: RUN_ID,
      viewUrl: `http://127.0.0.1:4040/#/runs/${RUN_ID}`,
    });
    expect(links.run({ runId: "nope" })).toEqual({ runId: "nope" });
    const refused: { ok: boolean; runId?: string } = { ok: false };
    expect(links.run(refused)).toEqual({ ok: false });
    expect(runLinks(undefined).results({ results: [{ runId: RUN_ID }] })).toEqual({
      results: [{ runId: RUN_ID }],
    });
  });
});

const DASHBOARD = "https://ops.example/errand";
const viewUrlOf = (runId: string) => `${DASHBOARD}/#/runs/${runId}`;

let linked: Errand;
let collector: Collector;

it.beforeAll(async ({ fx }) => {
  linked = createErrand({ connection: fx.server.url, prefix: fx.prefix, dashboardUrl: DASHBOARD });
  collector = createCollector({ connection: fx.server.url, prefix: fx.prefix, blockMs: 100 });
  await collector.start();
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: "echo", scriptFromInput: false }], {
    queue: "nobody-takes-these",
  });
});
afterAll(async () => {
  await collector?.stop();
  await linked?.close();
});

/** Settles `runId` with a text and waits until its result is stored. */
async function settle(fx: EngineFixture, runId: string): Promise<void> {
  await fx.errand.store.appendEvents(runId, "any", [
    { type: "finished", at: new Date().toISOString(), data: { text: "done" } },
  ]);
  await fx.errand.result(runId, { waitMs: 20_000 });
}

describe("a client given a dashboard URL", () => {
  it("links each run fire, fireMany, result, collect and list return; never a refused spec", async ({
    fx,
  }) => {
    const fired = await linked.fire({ agent: "echo", input: 1 });
    expect(fired).toEqual({ runId: fired.runId, viewUrl: viewUrlOf(fired.runId) });

    const batch = await linked.fireMany([
      { agent: "echo", input: 2 },
      { agent: "nobody-runs-this", input: 3 },
    ]);
    const [second, refused] = batch.results;
    expect(second).toEqual({ ok: true, runId: second!.runId, viewUrl: viewUrlOf(second!.runId!) });
    expect(refused).toMatchObject({ ok: false, error: { code: "unknown_agent" } });
    expect(refused).not.toHaveProperty("viewUrl");

    await settle(fx, fired.runId);
    expect(await linked.result(fired.runId)).toMatchObject({
      runId: fired.runId,
      status: "succeeded",
      viewUrl: viewUrlOf(fired.runId),
    });

    const page = await linked.collect([fired.runId, second!.runId!, "nope"]);
    expect(page.results.map((run) => run.viewUrl)).toEqual([
      viewUrlOf(fired.runId),
      viewUrlOf(second!.runId!),
      undefined,
    ]);

    const listed = await linked.list({ limit: 500 });
    expect(listed.items.find((item) => item.runId === fired.runId)?.viewUrl).toBe(
      viewUrlOf(fired.runId),
    );
  });

  it("does not store the link: a client without a dashboard URL reads the same run without one", async ({
    fx,
  }) => {
    const { runId } = await linked.fire({ agent: "echo", input: 4 });
    await settle(fx, runId);
    expect(await fx.redis.get(fx.errand.keys.result(runId))).not.toContain("viewUrl");
    expect(await fx.errand.result(runId)).not.toHaveProperty("viewUrl");
    expect((await fx.errand.collect([runId])).results[0]).not.toHaveProperty("viewUrl");
    expect(await fx.errand.fire({ agent: "echo", input: 5 })).not.toHaveProperty("viewUrl");
    const batch = await fx.errand.fireMany([{ agent: "echo", input: 6 }]);
    expect(batch.results[0]).not.toHaveProperty("viewUrl");
  });

  it("refuses a dashboard URL that is not absolute http(s) when the client is created", ({
    fx,
  }) => {
    expect(() =>
      createErrand({ connection: fx.server.url, prefix: fx.prefix, dashboardUrl: "ops.example" }),
    ).toThrow(/dashboardUrl must be the absolute http\(s\) URL/);
  });
});
