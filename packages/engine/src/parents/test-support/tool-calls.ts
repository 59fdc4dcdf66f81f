/**
 * Calling the parent tools the way the runtime does, without a worker: the
 * services a worker would lend them, built on a test's Redis, and a tool
 * context for one call of a parent run. Test-only: not exported.
 */
import { waitpointToken } from "@errand/core/ops";
import type { Tool, ToolContext } from "@errand/runtime";
import { noopLogger } from "@errand/runtime/ops";
import { createReadsContext, type ReadsContext } from "../../reads/context.js";
import { runLinks } from "../../reads/view-url.js";
import { openSettledWaiter } from "../../redis/connection.js";
import { systemClock } from "../../resources.js";
import type { EngineFixture } from "../../test-support/engine-fixture.js";
import { DEFAULT_PARENT_LIMITS, type ParentLimits } from "../limits.js";
import { openParentServices, PARENT_SERVICES, type ParentServices } from "../parent-services.js";

/** Parent services on the fixture's Redis, as a worker builds them. */
export interface LentServices {
  services: ParentServices;
  /** The reads the services were built on. */
  reads: ReadsContext;
  close(): Promise<void>;
}

/**
 * The services a worker with `limits` (and `dashboardUrl`, when given) would
 * lend, on `fx`'s Redis and prefix.
 */
export function lendParentServices(
  fx: EngineFixture,
  limits: Partial<ParentLimits> = {},
  dashboardUrl?: string,
): LentServices {
  const reads = createReadsContext({
    redis: fx.redis,
    keys: fx.errand.keys,
    store: fx.errand.store,
    waiter: openSettledWaiter(fx.server.url, fx.errand.keys, { logger: noopLogger, name: "test" }),
    shards: fx.errand.store.shards,
    now: systemClock,
    logger: noopLogger,
  });
  const opened = openParentServices({
    connection: fx.server.url,
    reads,
    limits: { ...DEFAULT_PARENT_LIMITS, ...limits },
    links: runLinks(dashboardUrl),
  });
  return {
    services: opened.services,
    reads,
    async close() {
      await opened.close();
      await reads.waiter.close();
    },
  };
}

/** Where a call is made: the parent run, its step and callId, and what is lent. */
export interface CallSite {
  runId: string;
  step?: number;
  callId?: string;
  /** What the host lends; default nothing. */
  services?: ParentServices;
}

/** Runs `tool` with `args` as the runtime would (arguments parsed first) for the call at `site`. */
export async function callTool(tool: Tool, args: unknown, site: CallSite): Promise<unknown> {
  const step = site.step ?? 1;
  const callId = site.callId ?? "call_1_1";
  const ctx: ToolContext = {
    signal: new AbortController().signal,
    runId: site.runId,
    step,
    callId,
    logger: noopLogger,
    putBlob: () => Promise.reject(new Error("no blobs in these tests")),
    services: site.services === undefined ? {} : { [PARENT_SERVICES]: site.services },
    waitpoint: { token: waitpointToken({ runId: site.runId, step, callId }), state: undefined },
  };
  return tool.handler(tool.parameters.parse(args), ctx);
}
