/**
 * The probes `/livez` and `/readyz`: answered without the token (as the
 * kubelet probes a pod's address, naming it in `Host`), while every other
 * route still asks for it; `/readyz` follows the dashboard's Redis.
 */
import { waitUntil } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawAnswer, rawRequest } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

const TOKEN = "probe-token-0123456789abcdef";
/** The Host a kubelet's probe names: the pod's address and port. */
const POD_HOST = "10.244.1.17:4040";

let w: Workload;
/** Listening on every interface with a token, as in a pod. */
let pod: string;

beforeAll(async () => {
  w = await startWorkload("health", { token: TOKEN });
  const dashboard = await w.startDashboard({ host: "0.0.0.0", token: TOKEN });
  pod = dashboard.url.replace("0.0.0.0", "127.0.0.1");
});

afterAll(async () => {
  await w?.stop();
});

const probe = (base: string, path: string, host = POD_HOST) =>
  rawRequest(base, path, { headers: { host } });

describe("the probes", () => {
  it("answer without the token, which every other route still asks for", async () => {
    const live = await probe(pod, "/livez");
    expect([live.status, live.body]).toEqual([200, "ok\n"]);
    const ready = await probe(pod, "/readyz");
    expect([ready.status, ready.body]).toEqual([200, "ok\n"]);
    expect(ready.headers["cache-control"]).toBe("no-store");
    expect((await probe(pod, "/api/overview")).status).toBe(401);
    expect((await probe(pod, "/")).status).toBe(401);
  });

  it("keep the host check of a dashboard on loopback", async () => {
    const loopback = w.dashboard.url;
    expect((await probe(loopback, "/livez", new URL(loopback).host)).status).toBe(200);
    expect((await probe(loopback, "/readyz", "attacker.example:4040")).status).toBe(403);
  });

  it("/readyz answers 503 while Redis does not answer and 200 once it is back; /livez stays 200", async () => {
    let last: RawAnswer | undefined;
    const until = async (status: number) =>
      waitUntil(
        async () => {
          last = await probe(pod, "/readyz");
          return last.status === status ? last : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
    await w.server.kill();
    const away = await until(503);
    expect(away?.body, JSON.stringify(last)).toBe("redis does not answer\n");
    expect((await probe(pod, "/livez")).status).toBe(200);
    await w.server.restart();
    expect((await until(200))?.body, JSON.stringify(last)).toBe("ok\n");
  });
});
