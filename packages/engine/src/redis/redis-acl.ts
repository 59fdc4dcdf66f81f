/**
 * The least-privilege Redis ACL user of errand: it may touch only the keys
 * under its prefix (`~<prefix>:*`, BullMQ's queues included), publish and
 * subscribe only on its prefix's channels (`&<prefix>:*`: cancels, settled
 * runs), and run only the commands errand's processes and BullMQ run. No
 * command of Redis' `@dangerous` category is allowed but `INFO`, which
 * ioredis' ready check and BullMQ's version check read on every connection.
 * `errand doctor --acl` prints it for a prefix; `infra/redis-acl.conf` is
 * the one for the default prefix.
 */
import { engineKeys } from "../engine-keys.js";

/**
 * Commands of every connection: ioredis' ready check (`INFO`), a database
 * other than 0 in the URL (`SELECT`), ioredis' Cluster client finding the
 * slots (and `errand doctor` checking them), BullMQ's connection names and
 * transactions, scripts (`EVALSHA`, then `EVAL` when the server lacks one).
 */
const CONNECTION_COMMANDS = [
  "ping",
  "info",
  "select",
  "quit",
  "cluster|slots",
  "cluster|keyslot",
  "client|setname",
  "multi",
  "exec",
  "evalsha",
  "eval",
  // the flow-control scripts read Redis' clock
  "time",
];

/** Pub/sub, on the prefix's channels only. */
const PUBSUB_COMMANDS = ["publish", "subscribe", "unsubscribe"];

/**
 * What errand's and BullMQ's code and Lua scripts run on keys. Not `SCAN`,
 * `KEYS` or `TTL`: errand never lists keys (BullMQ scans only in a migration
 * helper errand does not call), and SCAN would show the names of every key on
 * the server, whatever the user's key patterns.
 */
const KEY_COMMANDS = [
  // keys
  "exists",
  "del",
  "type",
  "copy",
  "rename",
  "expire",
  "pexpire",
  "pexpireat",
  "pexpiretime",
  "persist",
  "pttl",
  // strings
  "get",
  "mget",
  "set",
  "incr",
  // hashes
  "hget",
  "hmget",
  "hset",
  "hsetnx",
  "hmset",
  "hdel",
  "hexists",
  "hgetall",
  "hincrby",
  "hlen",
  "hscan",
  // lists
  "lindex",
  "llen",
  "lpop",
  "lpos",
  "lpush",
  "lrange",
  "lrem",
  "lset",
  "ltrim",
  "rpop",
  "rpoplpush",
  "rpush",
  // sets
  "sadd",
  "scard",
  "sismember",
  "smembers",
  "srem",
  "sscan",
  // sorted sets
  "bzpopmin",
  "zadd",
  "zcard",
  "zcount",
  "zmscore",
  "zpopmin",
  "zrange",
  "zrangebylex",
  "zrangebyscore",
  "zrank",
  "zrem",
  "zremrangebyrank",
  "zremrangebyscore",
  "zrevrange",
  "zrevrangebyscore",
  "zscore",
  // streams
  "xack",
  "xadd",
  "xautoclaim",
  "xgroup|create",
  "xinfo|groups",
  "xlen",
  "xpending",
  "xrange",
  "xread",
  "xreadgroup",
  "xtrim",
];

/** Every command the errand user may run, sorted. */
export const ACL_COMMANDS: readonly string[] = [
  ...CONNECTION_COMMANDS,
  ...PUBSUB_COMMANDS,
  ...KEY_COMMANDS,
].sort();

/** A Redis glob matching `text` literally (`*`, `?`, `[`, `]` and `\` escaped). */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (special) => `\\${special}`);
}

/**
 * The ACL rules of errand's user for `prefix` (default `errand`), without its
 * password: `reset` (no key, channel or command, off), its keys, its
 * channels, `on` and the commands of {@link ACL_COMMANDS}. Give them to
 * `ACL SETUSER <user> <rules…> ><password>`, or see {@link redisAclConfig}.
 */
export function redisAclRules(prefix?: string): string[] {
  const pattern = `${globLiteral(engineKeys(prefix).prefix)}:*`;
  return ["reset", `~${pattern}`, `&${pattern}`, "on", ...ACL_COMMANDS.map((c) => `+${c}`)];
}

/** Options of {@link redisAclConfig}. */
export interface RedisAclConfigOptions {
  /** The key prefix errand uses. Default `errand`. */
  prefix?: string;
  /** The user's name. Default `errand`. */
  user?: string;
}

/**
 * The errand user as a `redis.conf` (or `include`d file) directive, with
 * comments saying what it allows and how to use it; its password is a
 * placeholder to replace.
 */
export function redisAclConfig(options: RedisAclConfigOptions = {}): string {
  const prefix = engineKeys(options.prefix).prefix;
  const user = options.user ?? "errand";
  const [reset, keys, channels, on, ...commands] = redisAclRules(prefix);
  return [
    `# The least-privilege Redis user of errand, for the key prefix "${prefix}".`,
    "# Include this file in redis.conf (include /path/to/redis-acl.conf), or run the",
    `# same rules as ACL SETUSER ${user} … on a running server (then ACL SAVE if it uses an aclfile).`,
    "# Replace <password> with a long random secret (or #<sha256 of it>), and connect",
    `# with REDIS_URL=redis://${user}:<password>@host:6379 (rediss:// for TLS).`,
    `# The user reaches only keys and channels under "${prefix}:", and runs only the`,
    "# commands errand and BullMQ run: no @dangerous command but INFO, which ioredis",
    "# and BullMQ read on connecting. On Redis 7.2 or newer, add +client|setinfo to keep",
    "# ioredis' client-name call out of the ACL LOG (it is harmless when refused).",
    `user ${user} ${reset} ${on} ><password> ${keys} ${channels} ${commands.join(" ")}`,
    "",
  ].join("\n");
}
