/**
 * The client's reads on a connection whose round trips are counted. A round
 * trip starts when a command is sent after a reply arrived: commands sent
 * together (one pipeline, or several sent before any reply) are one, and a
 * read that waits for a reply before sending more costs one more.
 * Test-only: not exported.
 */
import { noopLogger } from "@errand/runtime/ops";
import type { Redis } from "ioredis";
import type {
  EngineRedisFixture,
  PrefixedStore,
} from "../../collector/test-support/redis-fixture.js";
import { TEST_SHARDS } from "../../collector/test-support/redis-fixture.js";
import { clientPatience } from "../../redis/client-patience.js";
import { openSettledWaiter } from "../../redis/connection.js";
import { systemClock } from "../../resources.js";
import { createReadsContext } from "../context.js";
import { type RunReads, readsOn } from "../create-run-reads.js";
import { runLinks } from "../view-url.js";

/** What the counter has seen since it started (or was last reset). */
interface TrafficCount {
  roundTrips: number;
  commands: number;
}

/** Reads whose Redis traffic is counted. */
export interface CountedReads {
  reads: Omit<RunReads, "close">;
  /** The round trips and commands sent since the last call (or since the start). */
  take(): TrafficCount;
  /** Resolves once at least `commands` commands have been sent since the last `take` and every one has its reply. */
  untilAnswered(commands: number): Promise<void>;
  close(): Promise<void>;
}

/** Counts what `redis` (connected and ready) sends from now on. */
function countTraffic(redis: Redis) {
  let count: TrafficCount = { roundTrips: 0, commands: 0 };
  let replied = true;
  let unanswered = 0;
  let waiting: { commands: number; resolve(): void } | undefined;
  const check = () => {
    if (waiting && unanswered === 0 && count.commands >= waiting.commands) waiting.resolve();
  };
  // ioredis parses replies in a listener it prepends; this one runs after it, before any continuation.
  redis.stream.on("data", () => {
    replied = true;
  });
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    if (replied) count.roundTrips += 1;
    replied = false;
    count.commands += 1;
    unanswered += 1;
    command.promise.then(
      () => {
        unanswered -= 1;
        check();
      },
      () => {
        unanswered -= 1;
        check();
      },
    );
    return send(command, stream);
  };
  return {
    take(): TrafficCount {
      const taken = count;
      count = { roundTrips: 0, commands: 0 };
      return taken;
    },
    untilAnswered(commands: number): Promise<void> {
      return new Promise((resolve) => {
        waiting = { commands, resolve };
        check();
      });
    },
  };
}

/** The reads of `scope` on a connection of their own whose traffic is counted (optionally with a dashboard URL). */
export async function countedReads(
  fx: EngineRedisFixture,
  scope: PrefixedStore,
  dashboardUrl?: string,
): Promise<CountedReads> {
  const redis = fx.connect();
  await redis.ping();
  const traffic = countTraffic(redis);
  const context = createReadsContext({
    redis,
    keys: scope.keys,
    store: scope.store,
    waiter: openSettledWaiter(fx.url, scope.keys, { logger: noopLogger, name: "test" }),
    shards: TEST_SHARDS,
    now: systemClock,
    logger: noopLogger,
  });
  return {
    reads: readsOn(context, runLinks(dashboardUrl), clientPatience(noopLogger, fx.url)),
    take: traffic.take,
    untilAnswered: traffic.untilAnswered,
    close: () => context.waiter.close(),
  };
}
