import { ErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { redisTroubleOf, transientRedisError } from "./transient-redis.js";

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
      "the Redis Cluster is moving (slots migrating, or a master restarting or failing over), so a child was not fired (CLUSTERDOWN The cluster is down). It passes once Redis is back: try again",
    );
    const full = transientRedisError(
      "a child was not fired",
      replyError("OOM command not allowed"),
    );
    expect(full.code).toBe("redis_out_of_memory");
  });
});
