/**
 * What a page of every child costs once none is pending, against real
 * Redis: a parent with 40 children and one with 400, both settled, each
 * paged through by cursor 20 at a time. After the first page, every page
 * issues the same Redis commands whatever the number of children, and reads
 * no more of the children index than its own slice — the cost of one more
 * child does not depend on how many came before. The commands, and the
 * values each carried, are counted by a proxy that passes every call to the
 * real client. The first page costs the same too: the counts kept as the
 * children settled answer for every child. A page the counts cannot answer
 * tallies the children a slice at a time: no call carries them all.
 */
import { decodeCursor, encodeCursor, isRunId } from "@errand/core/ops";
import { afterAll, describe, expect } from "vitest";
import type { CollectResult } from "../reads/collect.js";
import type { ReadsContext } from "../reads/context.js";
import { parentTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { collectEveryChild } from "./children-tally.js";
import { collectChildren } from "./collect-children.js";
import { spawnAgentsTool } from "./spawn-agents.js";
import type { SpawnResult } from "./spawn-children.js";
import { CHILD, LEAD } from "./test-support/parent-fixture.js";
import { callTool, type LentServices, lendParentServices } from "./test-support/tool-calls.js";

const it = parentTest("children-pages-cost");

const SIZES = [40, 400] as const;
const PAGE = 20;

let lent: LentServices;
/** Each parent's runId by its number of children. */
const parents = new Map<number, string>();

/**
 * A Redis call made through a counting view of `reads`: its command, and
 * how many values it carried both ways (its arguments, arrays flattened,
 * and the members of an array reply).
 */
interface CountedCall {
  name: string;
  values: number;
}

/** How many values `args` holds, arrays flattened. */
function valuesIn(args: readonly unknown[]): number {
  return args.reduce<number>((sum, arg) => sum + (Array.isArray(arg) ? valuesIn(arg) : 1), 0);
}

/** `reads` whose Redis client counts each command it is asked for into `calls`. */
function countingReads(reads: ReadsContext, calls: CountedCall[]): ReadsContext {
  const redis = new Proxy(reads.redis, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      if (property === "multi") {
        // A transaction is counted as one call: its commands ride on it.
        calls.push({ name: property, values: 0 });
        return value.bind(target);
      }
      return async (...args: unknown[]) => {
        const reply: unknown = await value.apply(target, args);
        const replied = Array.isArray(reply) ? valuesIn(reply) : 1;
        calls.push({ name: property, values: valuesIn(args) + replied });
        return reply;
      };
    },
  });
  return { ...reads, redis };
}

it.beforeAll(async ({ pfx }) => {
  const { fx } = pfx;
  await registerTestQueue(fx.redis, fx.errand.keys, [{ name: LEAD }, { name: CHILD }], {
    queue: "nobody-takes-these",
  });
  lent = lendParentServices(fx, { maxChildrenPerParent: 400 });
  for (const size of SIZES) {
    const parent = (await fx.errand.fire({ agent: LEAD, input: null })).runId;
    parents.set(size, parent);
    const agents = Array.from({ length: size }, (_, index) => ({ agent: CHILD, input: index }));
    const site = { runId: parent, step: 1, callId: "call_1_1", services: lent.services };
    const spawned = (await callTool(spawnAgentsTool, { agents }, site)) as SpawnResult;
    const children = spawned.results.map((item) => item.runId!);
    const at = new Date().toISOString();
    await Promise.all(
      children.map((child) =>
        fx.errand.store.appendEvents(child, "any", [
          { type: "finished", at, data: { text: "ok" } },
        ]),
      ),
    );
    for (let start = 0; start < children.length; start += 100) {
      let waiting = children.slice(start, start + 100);
      while (waiting.length > 0) {
        const read = await fx.errand.collect(waiting, { waitMs: 20_000, limit: 100 });
        waiting = read.results.filter((r) => r.status === "pending").map((r) => r.runId);
      }
    }
  }
}, 120_000);
afterAll(async () => {
  await lent?.close();
});

/** Every page of `parent`'s children, with the Redis calls each cost. */
async function pageThrough(
  reads: ReadsContext,
  parent: string,
): Promise<{ pages: CollectResult[]; calls: CountedCall[][] }> {
  const pages: CollectResult[] = [];
  const calls: CountedCall[][] = [];
  let cursor: string | undefined;
  do {
    const made: CountedCall[] = [];
    const outcome = await collectChildren(countingReads(reads, made), {
      parentRunId: parent,
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (!("page" in outcome)) throw new Error("a settled parent's collect parked");
    pages.push(outcome.page);
    calls.push(made);
    cursor = outcome.page.nextCursor;
  } while (cursor !== undefined);
  return { pages, calls };
}

describe("pages of every child, once settled", () => {
  it("cost the same Redis commands a page for 40 children and for 400, each reading only its slice", async () => {
    const reads = lent.reads;
    const paged = new Map<number, Awaited<ReturnType<typeof pageThrough>>>();
    for (const size of SIZES) paged.set(size, await pageThrough(reads, parents.get(size)!));

    for (const size of SIZES) {
      const { pages, calls } = paged.get(size)!;
      expect(pages).toHaveLength(size / PAGE);
      const seen = pages.flatMap((page) => page.results.map((result) => result.runId));
      expect(seen).toHaveLength(size);
      expect(new Set(seen).size).toBe(size);
      expect(seen.every(isRunId)).toBe(true);
      for (const page of pages) {
        expect(page).toMatchObject({ total: size, succeeded: size, pending: 0, count: PAGE });
      }
      // Past the first page, no call carries more than about a page of values.
      for (const made of calls.slice(1)) {
        for (const call of made) expect(call.values).toBeLessThanOrEqual(4 * PAGE);
      }
    }
    const perPage = (size: number) =>
      paged
        .get(size)!
        .calls.slice(1)
        .map((made) => made.map((call) => `${call.name}:${call.values}`).join(","));
    const small = perPage(40);
    const large = perPage(400);
    expect(new Set([...small, ...large]).size).toBe(1);
    // The first page too: the counts kept as the children settled answer for every child.
    const first = (size: number) =>
      paged
        .get(size)!
        .calls[0]!.map((call) => `${call.name}:${call.values}`)
        .join(",");
    expect(first(400)).toBe(first(40));
    for (const call of paged.get(400)!.calls[0]!) expect(call.values).toBeLessThanOrEqual(4 * PAGE);
  });

  it("tally every child a slice at a time when no cursor carries their counts", async () => {
    const size = 400;
    const parentRunId = parents.get(size)!;
    const slice = 50;
    const whole = await pageThrough(lent.reads, parentRunId);
    const order = whole.pages.flatMap((page) => page.results.map((result) => result.runId));
    // The first page, and one from a cursor without counts (as a page with runs pending writes).
    const from = 130;
    for (const cursor of [undefined, encodeCursor([from, order[from - 1]!])]) {
      const made: CountedCall[] = [];
      const outcome = await collectEveryChild(
        countingReads(lent.reads, made),
        { parentRunId, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) },
        { slice },
      );
      if (!("page" in outcome)) throw new Error("a settled parent's collect parked");
      const start = cursor === undefined ? 0 : from;
      expect(outcome.page).toMatchObject({
        total: size,
        succeeded: size,
        failed: 0,
        cancelled: 0,
        pending: 0,
        count: PAGE,
        hasMore: true,
      });
      expect(outcome.page.results.map((result) => result.runId)).toEqual(
        order.slice(start, start + PAGE),
      );
      expect(decodeCursor(outcome.page.nextCursor!)).toEqual([
        start + PAGE,
        order[start + PAGE - 1],
      ]);
      // No call carries every child: a slice of runIds, its standings, and their keys at most.
      expect(Math.max(...made.map((call) => call.values))).toBeLessThanOrEqual(3 * slice);
      expect(made.filter((call) => call.name === "zrange").length).toBeGreaterThan(size / slice);
    }
  });
});
