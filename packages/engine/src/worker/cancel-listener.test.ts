/**
 * The cancel listener against a real Redis: a run held twice at once has
 * both holds aborted by its cancel, a release stops only its own hold, and
 * a hold released twice leaves a later hold of the same run listening.
 */

import { expect } from "vitest";
import { createLogger } from "../logger.js";
import { engineTest } from "../test-support/engine-test.js";
import { type CancelListener, startCancelListener } from "./cancel-listener.js";

const it = engineTest("cancel-listener");

let cancels: CancelListener;

it.beforeAll(async ({ fx }) => {
  cancels = await startCancelListener(
    fx.server.url,
    fx.errand.keys,
    createLogger({ level: "silent" }),
  );
});
it.afterAll(async () => {
  await cancels?.close();
});

it("aborts every hold of a run still held, and none released", async ({ fx }) => {
  const runId = fx.errand.store.newRunId();
  const released = cancels.hold(runId);
  const first = cancels.hold(runId);
  const second = cancels.hold(runId);
  released.release();

  await fx.redis.publish(fx.errand.keys.cancelChannel, runId);

  await expect.poll(() => first.signal.aborted && second.signal.aborted).toBe(true);
  expect(released.signal.aborted).toBe(false);
  first.release();
  second.release();
});

it("keeps a later hold of a run listening when an earlier one is released twice", async ({
  fx,
}) => {
  const runId = fx.errand.store.newRunId();
  const earlier = cancels.hold(runId);
  earlier.release();
  const later = cancels.hold(runId);
  earlier.release();

  await fx.redis.publish(fx.errand.keys.cancelChannel, runId);

  await expect.poll(() => later.signal.aborted).toBe(true);
  expect(earlier.signal.aborted).toBe(false);
  later.release();
});
