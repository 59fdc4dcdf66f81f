/**
 * `grantedErrand` on a real errand (a worker and a collector in this
 * process): a key of tenant A meets every run of tenant B as an unknown one
 * — result, collect, list, cancel, events, stream, waitpoints list and
 * answer — and fires only under A (its tenant and concurrency key, its
 * children A's too); a read-only key cannot fire, cancel or answer; a key
 * limited to some agents fires only those (per item in `fireMany`); a key
 * without a tenant sees every run; each write is logged with the key's id,
 * never the key.
 */
import type { ErrandError } from "@errand/core";
import { runNotFound } from "@errand/core/ops";
import { describe, expect } from "vitest";
import type { Errand } from "../client/client.js";
import { engineTest } from "../test-support/engine-test.js";
import { type ErrandStack, startErrandStack } from "../test-support/errand-stack.js";
import { captureLogs } from "../test-support/log-capture.js";
import { TEST_AGENTS, testAgents } from "../test-support/test-agents.js";
import type { AccessGrant } from "./access-grant.js";
import { type AccessKeys, createAccessKeys } from "./access-keys.js";
import { type GrantedErrand, grantedErrand } from "./granted-errand.js";

const it = engineTest("granted");

const logs = captureLogs();
let stack: ErrandStack;
let keys: AccessKeys;

it.beforeAll(async ({ fx }) => {
  const shared = { connection: fx.server.url, prefix: fx.prefix, logger: captureLogs().logger };
  stack = await startErrandStack({
    ...shared,
    worker: { agents: testAgents({ redis: fx.redis, prefix: fx.prefix }), concurrency: 4 },
  });
  keys = createAccessKeys(shared);
});
it.afterAll(async () => {
  await keys?.close();
  await stack?.stop({ graceMs: 0 });
});

const ASKING = {
  script: [{ call: [{ tool: "ask", args: { question: "Go?" } }] }, { say: "done" }],
};
const SAYING = { script: [{ say: "hello" }] };

/** A verified key with `options`, and the errand it grants. */
async function keyed(
  options: Parameters<AccessKeys["create"]>[0],
): Promise<{ key: string; grant: AccessGrant; granted: GrantedErrand }> {
  const { key } = await keys.create(options);
  const grant = (await keys.verify(key))!;
  return { key, grant, granted: grantedErrand(stack.errand, grant, { logger: logs.logger }) };
}

/** The error `call` rejects with. */
async function refusal(call: () => Promise<unknown>): Promise<ErrandError> {
  return (await call().then(
    () => expect.fail("the call was allowed"),
    (error: unknown) => error,
  )) as ErrandError;
}

/** The first item of an iteration, or its error. */
async function firstOf<T>(iterable: AsyncIterable<T>): Promise<T> {
  for await (const item of iterable) return item;
  return expect.fail("the iteration ended empty");
}

/**
 * Waits until run `runId` parked on its waitpoint and the worker indexed it
 * (the last write of a park); resolves with the waitpoint's token.
 */
async function waitingToken(errand: Errand, runId: string): Promise<string> {
  let token: string | undefined;
  await expect
    .poll(
      async () => {
        const { items } = await errand.waitpoints.list({ limit: 500 });
        token = items.find((item) => item.runId === runId)?.token;
        return token;
      },
      { timeout: 30_000 },
    )
    .toBeDefined();
  return token!;
}

/** The answer about an unknown run: `not_found`, in the words of an unknown id. */
function asUnknown(runId: string) {
  return { code: "not_found", message: runNotFound(runId).message, retryable: false };
}

describe("a key of tenant A", () => {
  it("meets every run of tenant B as an unknown one, in every call, and changes nothing of it", async ({
    fx,
  }) => {
    const a = await keyed({ scopes: ["fire", "read", "cancel", "answer"], tenant: "acme" });
    const b = await keyed({ scopes: ["fire", "read", "cancel", "answer"], tenant: "globex" });
    const { runId: ours } = await a.granted.fire({ agent: TEST_AGENTS.plain, input: SAYING });
    const { runId: theirs } = await b.granted.fire({ agent: TEST_AGENTS.plain, input: ASKING });
    const token = await waitingToken(stack.errand, theirs);
    await fx.waitForEvent(ours);
    await expect.poll(() => stack.errand.result(ours), { timeout: 30_000 }).toBeDefined();

    // result, cancel, events, stream, waitpoints: as an unknown run.
    expect(await refusal(() => a.granted.result(theirs))).toMatchObject(asUnknown(theirs));
    expect(await refusal(() => a.granted.result(theirs, { waitMs: 200 }))).toMatchObject(
      asUnknown(theirs),
    );
    expect(await refusal(() => a.granted.cancel(theirs, { cascade: true }))).toMatchObject(
      asUnknown(theirs),
    );
    expect(await refusal(() => firstOf(a.granted.events(theirs)))).toMatchObject(asUnknown(theirs));
    expect(await refusal(() => firstOf(a.granted.stream(theirs)))).toMatchObject(asUnknown(theirs));
    expect(await refusal(() => a.granted.waitpoints.list({ runId: theirs }))).toMatchObject(
      asUnknown(theirs),
    );
    expect(
      await refusal(() => a.granted.waitpoints.complete(token, { approve: true, note: "x" })),
    ).toMatchObject(asUnknown(theirs));
    expect((await a.granted.waitpoints.list()).items.map((item) => item.runId)).not.toContain(
      theirs,
    );
    // A run of theirs as a parent: as an unknown parent.
    expect(
      await refusal(() =>
        a.granted.fire({ agent: TEST_AGENTS.plain, input: SAYING, parentRunId: theirs }),
      ),
    ).toMatchObject({ code: "not_found", message: runNotFound(theirs, "parent run").message });

    // collect: their run is a not_found item, word for word an unknown id's, counted as failed.
    const unknown = stack.errand.store.newRunId();
    const collected = await a.granted.collect([ours, theirs, unknown]);
    const asked = await stack.errand.collect([ours, unknown]);
    expect(collected).toMatchObject({ total: 3, succeeded: 1, failed: 2, pending: 0, count: 3 });
    expect(collected.results[0]).toEqual(asked.results[0]);
    expect(collected.results[1]).toEqual({
      ...asked.results[1],
      runId: theirs,
      error: { code: "not_found", message: `no run ${theirs}: it was never fired, or it expired` },
    });
    const firstPage = await a.granted.collect([theirs, ours], { limit: 1 });
    expect(firstPage.results.map((item) => [item.runId, item.status])).toEqual([
      [theirs, "not_found"],
    ]);
    const secondPage = await a.granted.collect([theirs, ours], {
      limit: 1,
      cursor: firstPage.nextCursor!,
    });
    expect(secondPage.results.map((item) => [item.runId, item.status])).toEqual([
      [ours, "succeeded"],
    ]);
    expect(JSON.stringify(firstPage.nextAction)).toContain(theirs);

    // list: their runs are not there, and asking for their tenant is an empty page.
    const listed = await a.granted.list();
    expect(listed.items.map((item) => item.runId)).toEqual([ours]);
    expect(listed.items[0]).toMatchObject({ tenant: "acme", status: "succeeded" });
    expect(await a.granted.list({ tenant: "globex" })).toEqual({
      items: [],
      count: 0,
      hasMore: false,
    });

    // Nothing of theirs changed: still waiting, answerable by them.
    expect((await stack.errand.store.readHead(theirs))?.status).toBe("running");
    expect(await b.granted.waitpoints.complete(token, { approve: true, note: "ok" })).toMatchObject(
      {
        runId: theirs,
      },
    );
    expect(await b.granted.result(theirs, { waitMs: 30_000 })).toMatchObject({
      status: "succeeded",
      tenant: "globex",
    });
    expect(await refusal(() => b.granted.result(ours))).toMatchObject(asUnknown(ours));
  });

  it("fires only under its tenant, with the tenant as concurrency key; children are its tenant's too", async () => {
    const a = await keyed({ scopes: ["fire", "read"], tenant: "initech" });
    const { runId } = await a.granted.fire({ agent: TEST_AGENTS.plain, input: SAYING });
    const head = await stack.errand.store.readHead(runId);
    expect(head).toMatchObject({ tenant: "initech", concurrencyKey: "initech" });
    expect(await a.granted.result(runId, { waitMs: 30_000 })).toMatchObject({ tenant: "initech" });

    for (const spec of [{ tenant: "acme" }, { concurrencyKey: "gold" }]) {
      expect(
        await refusal(() => a.granted.fire({ agent: TEST_AGENTS.plain, input: SAYING, ...spec })),
      ).toMatchObject({ code: "forbidden", retryable: false });
    }
    expect(
      await a.granted.fire({ agent: TEST_AGENTS.plain, input: SAYING, tenant: "initech" }),
    ).toHaveProperty("runId");

    // A child fired by anyone takes its parent's tenant, and cannot take another.
    const { runId: child } = await stack.errand.fire({
      agent: TEST_AGENTS.plain,
      input: SAYING,
      parentRunId: runId,
    });
    expect(await stack.errand.store.readHead(child)).toMatchObject({ tenant: "initech" });
    expect(
      await refusal(() =>
        stack.errand.fire({
          agent: TEST_AGENTS.plain,
          input: SAYING,
          parentRunId: runId,
          tenant: "acme",
        }),
      ),
    ).toMatchObject({ code: "invalid_spec" });
    expect((await a.granted.collect([child], { waitMs: 30_000 })).results[0]).toMatchObject({
      runId: child,
      status: "succeeded",
    });
  });
});

describe("a key without a tenant", () => {
  it("sees the runs of every tenant and of none", async () => {
    const tenanted = await keyed({ scopes: ["fire", "read"], tenant: "umbrella" });
    const admin = await keyed({ scopes: ["fire", "read"] });
    const { runId: theirs } = await tenanted.granted.fire({
      agent: TEST_AGENTS.plain,
      input: SAYING,
    });
    const { runId: untenanted } = await admin.granted.fire({
      agent: TEST_AGENTS.plain,
      input: SAYING,
    });
    expect(await admin.granted.result(theirs, { waitMs: 30_000 })).toMatchObject({
      tenant: "umbrella",
    });
    const result = await admin.granted.result(untenanted, { waitMs: 30_000 });
    expect(result).not.toHaveProperty("tenant");
    expect(await refusal(() => tenanted.granted.result(untenanted))).toMatchObject(
      asUnknown(untenanted),
    );
    const page = await admin.granted.list({ tenant: "umbrella" });
    expect(page.items.map((item) => item.runId)).toEqual([theirs]);
  });
});

describe("scopes and agents", () => {
  it("a read-only key reads but cannot fire, cancel or answer: forbidden, nothing written", async ({
    fx,
  }) => {
    const reader = await keyed({ scopes: ["read"] });
    const { runId } = await stack.errand.fire({ agent: TEST_AGENTS.plain, input: ASKING });
    const token = await waitingToken(stack.errand, runId);
    const before = await fx.footprint();
    const forbidden = { code: "forbidden", retryable: false };
    expect(
      await refusal(() => reader.granted.fire({ agent: TEST_AGENTS.plain, input: SAYING })),
    ).toMatchObject(forbidden);
    expect(
      await refusal(() => reader.granted.fireMany([{ agent: TEST_AGENTS.plain, input: SAYING }])),
    ).toMatchObject(forbidden);
    expect(await refusal(() => reader.granted.cancel(runId))).toMatchObject(forbidden);
    expect(
      await refusal(() => reader.granted.waitpoints.complete(token, { approve: true, note: "x" })),
    ).toMatchObject(forbidden);
    await fx.expectNothingWrittenSince(before);
    expect(
      (await reader.granted.waitpoints.list({ runId })).items.map((item) => item.token),
    ).toEqual([token]);
    await stack.errand.cancel(runId);

    const firer = await keyed({ scopes: ["fire"] });
    expect(await refusal(() => firer.granted.list())).toMatchObject(forbidden);
    expect(await refusal(() => firstOf(firer.granted.events(runId)))).toMatchObject(forbidden);
  });

  it("a key limited to some agents fires only those; in fireMany the others fail alone", async () => {
    const limited = await keyed({ scopes: ["fire", "read"], agents: [TEST_AGENTS.plain] });
    expect(
      await refusal(() => limited.granted.fire({ agent: TEST_AGENTS.structured, input: SAYING })),
    ).toMatchObject({ code: "forbidden", retryable: false });
    const batch = await limited.granted.fireMany([
      { agent: TEST_AGENTS.plain, input: SAYING },
      { agent: TEST_AGENTS.structured, input: SAYING },
      { agent: TEST_AGENTS.plain, input: SAYING },
    ]);
    expect(batch).toMatchObject({ total: 3, succeeded: 2, failed: 1 });
    expect(batch.results.map((item) => [item.ok, item.error?.code])).toEqual([
      [true, undefined],
      [false, "forbidden"],
      [true, undefined],
    ]);
    const collected = await limited.granted.collect(
      batch.results.flatMap((item) => (item.runId === undefined ? [] : [item.runId])),
      { waitMs: 30_000 },
    );
    expect(collected).toMatchObject({ total: 2, succeeded: 2 });
  });
});

describe("the log of writes", () => {
  it("names the key by its id for every fire, cancel and answer, never by the key", async () => {
    const { key, grant, granted } = await keyed({
      scopes: ["fire", "read", "cancel", "answer"],
      tenant: "hooli",
    });
    const { runId } = await granted.fire({ agent: TEST_AGENTS.plain, input: ASKING });
    const token = await waitingToken(stack.errand, runId);
    await granted.waitpoints.complete(token, { approve: true, note: "ok" });
    await granted.result(runId, { waitMs: 30_000 });
    const batch = await granted.fireMany([{ agent: TEST_AGENTS.plain, input: ASKING }]);
    await granted.cancel(batch.results[0]!.runId!);

    const mine = logs.lines.filter((line) => line.keyId === grant.keyId);
    expect(mine.map((line) => line.msg)).toEqual([
      "run fired with an access key",
      "waitpoint answered with an access key",
      "run fired with an access key",
      "run cancelled with an access key",
    ]);
    expect(mine[0]).toMatchObject({ runId, tenant: "hooli", agent: TEST_AGENTS.plain });
    expect(logs.text()).not.toContain(key.slice(22));
  });
});
