/**
 * The dashboard runs as errand's least-privilege ACL user (`redisAclRules`),
 * as the client, worker and collector beside it do: every route — session,
 * overview, lists, search, a run, its timeline, an event, a blob, the tree,
 * both live streams, the schedules, cancel, replay, bulk re-run, creating,
 * pausing, resuming and removing a schedule — answers, and the server's ACL
 * LOG stays empty.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BIG_CITY,
  CITY,
  cityAnswerSchema,
  cityItem,
  LEAD,
  leadScript,
  lookupThenRecord,
  slowChild,
} from "./test-support/agents.js";
import { openSse, postAction, requestJson } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

let w: Workload;
let admin: Redis;

beforeAll(async () => {
  const aclUser = { name: "errand-dashboard", password: randomBytes(16).toString("hex") };
  w = await startWorkload("acl", {}, { aclUser });
  admin = new Redis(w.server.url);
  await admin.acl("LOG", "RESET");
});
afterAll(async () => {
  admin?.disconnect();
  await w?.stop();
});

describe("the dashboard as the least-privilege ACL user", () => {
  it("answers every route without a command refused", async () => {
    const base = w.dashboard.url;
    const { runId: lead } = await w.errand.fire({
      agent: LEAD,
      input: {
        script: leadScript([
          cityItem(lookupThenRecord("Oslo"), { city: "Oslo" }),
          cityItem(lookupThenRecord(BIG_CITY), { city: BIG_CITY }),
        ]),
      },
    });
    const { runId: slow } = await w.errand.fire({
      agent: CITY,
      input: { script: slowChild() },
      outputSchema: cityAnswerSchema,
    });
    const overviewStream = await openSse(base, "/api/live");
    await w.waitForEvent(
      slow,
      (event) => event.type === "model-responded" || event.type === "run-started",
    );
    const runStream = await openSse(base, `/api/runs/${slow}/live`);
    expect((await runStream.next()).event).toBe("run");
    expect((await overviewStream.next()).event).toBe("overview");
    runStream.close();
    overviewStream.close();

    await w.waitForResult(lead);
    const created = await postAction(base, "/api/schedules", {
      id: "nightly",
      agent: CITY,
      input: { script: lookupThenRecord("Oslo") },
      cron: "0 3 * * *",
    });
    expect(created.status).toBe(200);
    const children = await w.childrenByCity(lead);
    const big = children.get(BIG_CITY)!;
    const gets = [
      "/api/session",
      "/api/overview",
      "/api/runs",
      "/api/runs?q=Oslo",
      `/api/runs/${lead}`,
      `/api/runs/${lead}/events`,
      `/api/runs/${lead}/events/1`,
      `/api/runs/${lead}/tree`,
      `/api/runs/${big}/blobs/0`,
      "/api/schedules",
      "/api/schedules/nightly",
    ];
    for (const path of gets) {
      expect({ path, status: (await requestJson(base, path)).status }).toEqual({
        path,
        status: 200,
      });
    }
    expect((await postAction(base, `/api/runs/${slow}/cancel`, { reason: "done" })).status).toBe(
      200,
    );
    expect((await postAction(base, `/api/runs/${children.get("Oslo")}/replay`)).status).toBe(201);
    await w.waitForResult(slow);
    const rerun = await postAction<{ succeeded: number }>(base, "/api/runs/rerun", {
      runIds: [lead],
    });
    expect({ status: rerun.status, succeeded: rerun.body.succeeded }).toEqual({
      status: 200,
      succeeded: 1,
    });
    for (const action of ["pause", "resume", "remove"]) {
      expect((await postAction(base, `/api/schedules/nightly/${action}`)).status).toBe(200);
    }
    expect(await w.errand.schedules.list()).toEqual([]);

    expect(await admin.acl("LOG")).toEqual([]);
    // Every connection but this test's own is the ACL user's.
    const users = String(await admin.client("LIST"))
      .trim()
      .split("\n")
      .map((line) => /\buser=(\S+)/.exec(line)?.[1]);
    expect(users.filter((user) => user === "errand-dashboard").length).toBeGreaterThan(3);
    expect(users.filter((user) => user !== "errand-dashboard")).toEqual(["default"]);
  });
});
