/**
 * `errand doctor`: checks that Redis and errand's processes are fit to run,
 * and for each problem prints the fix to apply.
 */
import { isErrandError } from "@errand/core";
import { engineKeys, type RedisConnection } from "@errand/engine";
import { redisAclConfig } from "@errand/engine/ops";
import { Cluster } from "ioredis";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { type DoctorCheck, passed, problem } from "../doctor/check.js";
import { checkModel } from "../doctor/model-checks.js";
import { runServerChecks } from "../doctor/run-checks.js";
import { EXIT } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { describeError, writeJson, writeLines } from "../output.js";
import { connectRedis, givenRedisUrl, keyPrefix, NO_REDIS_GIVEN, redactUrl } from "../redis.js";

const REACHABLE = "redis reachable";

/** What to do when Redis cannot be used, by why (`redisConnectionError`'s `details.reason`). */
const REACH_FIXES: Readonly<Record<string, string>> = {
  credentials:
    "put the right user name and password in REDIS_URL (or --redis): redis://<user>:<password>@host:port",
  permission: "give the user the ACL errand needs: errand doctor --acl prints it",
  tls: "make this process trust the server's CA (NODE_EXTRA_CA_CERTS=<ca.pem>), connect by a name its certificate lists, and use rediss:// only on a TLS port",
};

/** Connects, or says why not as the first check's problem. */
async function reach(
  url: string | undefined,
): Promise<{ check: DoctorCheck; redis?: RedisConnection }> {
  if (url === undefined) {
    return { check: problem(REACHABLE, NO_REDIS_GIVEN, "set REDIS_URL or pass --redis <url>") };
  }
  try {
    const redis = await connectRedis(url);
    const what = redis instanceof Cluster ? `the cluster at ${redactUrl(url)}` : redactUrl(url);
    return { check: passed(REACHABLE, `${what} answered PING`), redis };
  } catch (error) {
    const reason = isErrandError(error) ? String(error.details?.reason) : "";
    const fix =
      REACH_FIXES[reason] ??
      "start Redis, or point REDIS_URL (or --redis) at a Redis that is running";
    return { check: problem(REACHABLE, describeError(error), fix) };
  }
}

function printReport(io: CliIO, checks: readonly DoctorCheck[]): void {
  const width = Math.max(...checks.map((check) => check.name.length));
  const lines = checks.flatMap((check) => [
    `${check.ok ? "ok     " : "PROBLEM"}  ${check.name.padEnd(width)}  ${check.detail}`,
    ...(check.fix === undefined ? [] : [`${" ".repeat(width + 11)}fix: ${check.fix}`]),
  ]);
  const problems = checks.filter((check) => !check.ok).length;
  const summary =
    problems === 0
      ? "No problems found."
      : `${problems} problem${problems === 1 ? "" : "s"} found.`;
  writeLines(io, [...lines, "", summary]);
}

/** `doctor`. */
export const doctorCommand: CommandSpec = {
  usage:
    "errand doctor [--redis <url>] [--prefix <prefix>] [--json] | errand doctor --acl [--prefix <prefix>]",
  description: [
    "Checks, in order: Redis is reachable (and accepts the credentials and TLS of the URL);",
    "its version (7.0 or newer); maxmemory-policy noeviction; memory under 90% of maxmemory;",
    "that it takes a write (a key <prefix>:doctor:write-probe, gone within 10 s);",
    "persistence; that each run's keys and each queue's keys share one Redis Cluster slot;",
    "that workers beat; that collectors read every shard and dead-lettered nothing; the model",
    "ERRAND_MODEL picks (anthropic/…, google/…, openai/…) and whether its API key is set. Each",
    "problem comes with the fix to apply. Credentials in the URL are printed [redacted].",
    "Exits 1 when any check fails, and 3 when no Redis is given or it cannot be used (the",
    "report then holds that one check). With --json it prints { ok, checks: [{ name, ok,",
    "detail, fix? }] }. With --acl it checks nothing: it prints the least-privilege Redis",
    "ACL user errand needs for the prefix (as infra/redis-acl.conf), and exits 0.",
  ].join("\n"),
  options: {
    ...CONNECTION_OPTIONS,
    ...JSON_OPTION,
    acl: {
      type: "boolean",
      description: "print the Redis ACL user errand needs for the prefix, and check nothing",
    },
  },
  async run(args, io) {
    const prefix = keyPrefix(args);
    if (args.flag("acl")) {
      io.stdout.write(redisAclConfig({ prefix }));
      return EXIT.ok;
    }
    const keys = engineKeys(prefix);
    const url = givenRedisUrl(args, io);
    const { check, redis } = await reach(url);
    const checks = [check];
    if (redis) {
      try {
        checks.push(...(await runServerChecks(redis, keys, new Date(), redactUrl(url ?? ""))));
      } finally {
        redis.disconnect();
      }
      checks.push(checkModel(io.env));
    }
    const ok = checks.every((c) => c.ok);
    if (args.flag("json")) writeJson(io, { ok, checks });
    else printReport(io, checks);
    if (redis === undefined) return EXIT.environment;
    return ok ? EXIT.ok : EXIT.failure;
  },
};
