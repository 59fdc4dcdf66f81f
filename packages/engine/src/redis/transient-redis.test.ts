import { setTimeout as delay } from "node:timers/promises";
import { ErrandError } from "@errand/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../logger.js";
import { markRedisReached } from "./reached-redis.js";
import {
  redisTroubleOf,
  retryWhileRedisIsTransient,
  transientRedisError,
} from "./transient-redis.js";

/** An error as ioredis rejects a command with it. */
function replyError(message: string): Error {
  return new Error(message);
}

describe("redisTroubleOf", () => {
  it.each([
    ["OOM command not allowed when used memory > 'maxmemory'.", "out-of-memory"],
    ["CLUSTERDOWN The cluster is down", "cluster-moving"],
    ["TRYAGAIN Multiple keys request during rehashing of slot", "cluster-moving"],
    [
      "Too many Cluster redirections. Last error: ReplyError: MOVED 866 127.0.0.1:7001",
      "cluster-moving",
    ],
    ["Failed to refresh slots cache.", "cluster-moving"],
    [
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
      "refusing-writes",
    ],
    ["MISCONF Errors writing to the AOF file: No space left on device", "refusing-writes"],
    ["LOADING Redis is loading the dataset in memory", "loading"],
    ["MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", "loading"],
    ["NOSCRIPT No matching script. Please use EVAL.", "loading"],
    ["Connection is closed.", "connection-lost"],
    ["read ECONNRESET", "connection-lost"],
  ])("%s is %s", (message, trouble) => {
    expect(redisTroubleOf(replyError(message))).toBe(trouble);
  });

  it.each([
    "MOVED 866 127.0.0.1:7001",
    "NOPERM this user has no permissions to run the 'xadd' command",
    "ERR Error running script: seq_conflict",
    "WRONGTYPE Operation against a key holding the wrong kind of value",
  ])("%s is no transient error: retrying cannot help", (message) => {
    expect(redisTroubleOf(replyError(message))).toBeUndefined();
  });

  it("follows the cause, and knows its own errors again", () => {
    const wrapped = new Error("the append failed", { cause: replyError("CLUSTERDOWN down") });
    expect(redisTroubleOf(wrapped)).toBe("cluster-moving");
    const named = transientRedisError("the run was not fired", replyError("LOADING loading"));
    expect(redisTroubleOf(named)).toBe("loading");
    expect(redisTroubleOf(new ErrandError("redis_unavailable", "no server"))).toBeUndefined();
  });
});

describe("transientRedisError", () => {
  it("says what was not done and why, retryable; a lack of memory keeps its own code", () => {
    const moving = transientRedisError(
      "a child was not fired",
      replyError("CLUSTERDOWN The cluster is down"),
    );
    expect(moving.code).toBe("redis_unavailable");
    expect(moving.retryable).toBe(true);
    expect(moving.details).toEqual({ trouble: "cluster-moving" });
    expect(moving.message).toBe(
      "the Redis Cluster is moving (slots migrating, or a master restarting or failing over), so a child was not fired (CLUSTERDOWN The cluster is down). Fix: wait for the cluster to be whole (every slot served; redis-cli cluster info says cluster_state:ok) and try again; the call is retryable",
    );
    markRedisReached("redis://ada:[redacted]@db.internal:6380");
    const lost = transientRedisError(
      "the list of runs was given up",
      new Error("Connection is closed."),
      "redis://ada:[redacted]@db.internal:6380",
    );
    expect(lost.details).toEqual({
      trouble: "connection-lost",
      target: "redis://ada:[redacted]@db.internal:6380",
    });
    expect(lost.message).toBe(
      "the connection to Redis was lost (Redis at redis://ada:[redacted]@db.internal:6380), so the list of runs was given up (Connection is closed.). Fix: make sure Redis runs and is reachable from here at that address (REDIS_URL, or the connection option), then try again; the call is retryable",
    );
    const neverReached = transientRedisError(
      "the list of runs was given up",
      new Error("Reached the max retries per request limit (which is 2)."),
      "redis://ada:[redacted]@db.internal:6381",
    );
    expect(neverReached.code).toBe("redis_unavailable");
    expect(neverReached.retryable).toBe(true);
    expect(neverReached.details).toEqual({
      trouble: "connection-lost",
      target: "redis://ada:[redacted]@db.internal:6381",
    });
    expect(neverReached.message).toBe(
      "could not connect to Redis at redis://ada:[redacted]@db.internal:6381, so the list of runs was given up (Reached the max retries per request limit (which is 2).). Fix: make sure Redis runs and is reachable from here at that address (REDIS_URL, or the connection option), then try again; the call is retryable",
    );
    const full = transientRedisError(
      "a child was not fired",
      replyError("OOM command not allowed"),
    );
    expect(full.code).toBe("redis_out_of_memory");
  });
});

describe("retryWhileRedisIsTransient with patienceMs", () => {
  const logger = createLogger({ level: "silent" });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("gives up once patienceMs passed since the call, counting the first try's own time", async () => {
    let tries = 0;
    const retried = retryWhileRedisIsTransient(
      async () => {
        tries += 1;
        // The first try alone outlasts the patience: no time is left for a second.
        if (tries === 1) await delay(400);
        throw replyError("Connection is closed.");
      },
      { logger, write: "probe write", patienceMs: 300 },
    );
    await expect(retried).rejects.toMatchObject({ code: "redis_unavailable", retryable: true });
    // Counted from the first trouble instead, a whole patience of retries would follow.
    expect(tries).toBe(1);
  });

  it("tries again within patienceMs before it gives up", async () => {
    let tries = 0;
    const retried = retryWhileRedisIsTransient(
      async () => {
        tries += 1;
        throw replyError("Connection is closed.");
      },
      { logger, write: "probe write", patienceMs: 300 },
    );
    await expect(retried).rejects.toMatchObject({ code: "redis_unavailable", retryable: true });
    // The first pause (at most 100 ms) ends before the patience (300 ms) does, however slow the machine.
    expect(tries).toBeGreaterThanOrEqual(2);
  });

  it("gives up a try that is never answered once patienceMs passed, unless the write is blocking", async () => {
    const startedAt = Date.now();
    const unanswered = retryWhileRedisIsTransient(() => new Promise<never>(() => undefined), {
      logger,
      write: "probe read",
      patienceMs: 300,
      target: "redis://127.0.0.1:6399",
    });
    await expect(unanswered).rejects.toMatchObject({
      code: "redis_unavailable",
      retryable: true,
      details: { trouble: "connection-lost", target: "redis://127.0.0.1:6399" },
    });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(295);
    const blocking = await retryWhileRedisIsTransient(
      async () => {
        await delay(500);
        return "answered late";
      },
      { logger, write: "probe follow", patienceMs: 300, blocking: true },
    );
    expect(blocking).toBe("answered late");
  });

  it("names the trouble it waited out when a later try is still unanswered at patienceMs", async () => {
    let tries = 0;
    const refused = retryWhileRedisIsTransient(
      () => {
        tries += 1;
        // Refused first, then never answered: the patience ends with a try in flight.
        if (tries === 1)
          return Promise.reject(replyError("MISCONF Redis is configured to save RDB snapshots"));
        return new Promise<never>(() => undefined);
      },
      { logger, write: "probe write", patienceMs: 300 },
    );
    await expect(refused).rejects.toMatchObject({
      code: "redis_unavailable",
      details: { trouble: "refusing-writes" },
    });
    expect(tries).toBe(2);
  });

  it("makes no timer for a write that goes through, and waits a passing trouble out", async () => {
    const timeouts = vi.spyOn(AbortSignal, "timeout");
    await expect(
      retryWhileRedisIsTransient(async () => "written", {
        logger,
        write: "probe write",
        patienceMs: 30_000,
      }),
    ).resolves.toBe("written");
    expect(timeouts).not.toHaveBeenCalled();
    let tries = 0;
    const written = await retryWhileRedisIsTransient(
      async () => {
        tries += 1;
        if (tries < 3) throw replyError("read ECONNRESET");
        return "written";
      },
      { logger, write: "probe write", patienceMs: 30_000 },
    );
    expect(written).toBe("written");
    expect(tries).toBe(3);
    // One signal, made at the first trouble, for the rest of the patience.
    expect(timeouts).toHaveBeenCalledTimes(1);
    expect(timeouts.mock.calls[0]![0]).toBeGreaterThan(29_000);
  });

  it("leaves no timer behind once a call ends, whether its write went through or failed", async () => {
    const timers = () =>
      process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const options = { logger, write: "probe write", patienceMs: 30_000 };
    await expect(retryWhileRedisIsTransient(async () => "written", options)).resolves.toBe(
      "written",
    );
    const refused = retryWhileRedisIsTransient(async () => {
      throw new Error("not a Redis trouble");
    }, options);
    await expect(refused).rejects.toThrow("not a Redis trouble");
    // The timers are cleared once the call's promise settled: a turn later, none is left.
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).toBe(before);
  });
});
