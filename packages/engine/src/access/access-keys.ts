/**
 * `createAccessKeys`: the keys that let HTTP and MCP callers reach errand
 * (docs/operations/keys.md). A key is printed once at `create` and only its
 * SHA-256 is kept (docs/architecture/redis-layout.md#access-keys); `verify`
 * turns a presented key into its grant, `admit` holds each key to its
 * requests a minute. What is hidden here: a verified grant is cached per
 * process for at most `verifyCacheMs` (default 500 ms, at most 1 s), which is
 * how long a key revoked elsewhere may still verify here.
 */
import { ErrandError } from "@errand/core";
import { defineLuaCommand, readLuaFile } from "@errand/store/ops";
import { z } from "zod";
import { engineKeys } from "../engine-keys.js";
import { createLogger } from "../logger.js";
import { clientPatience } from "../redis/client-patience.js";
import { CLOSE_ALLOWANCE_MS, closeWithin } from "../redis/closing.js";
import { CLIENT_COMMAND_RETRIES, closeConnection, openConnection } from "../redis/connection.js";
import { type EngineOptions, systemClock } from "../resources.js";
import {
  type AccessGrant,
  type AccessScope,
  AccessScopeName,
  LOOPBACK_KEY_ID,
  TenantName,
} from "./access-grant.js";
import { type AccessKeySummary, decodeRecord, grantOf, recordFields } from "./key-record.js";
import { hashOfKey, keyIdOf, newAccessKey } from "./key-secret.js";

/** A key's requests a minute when neither it nor {@link AccessKeysOptions} say: 600. */
export const DEFAULT_REQUESTS_PER_MINUTE = 600;

/** How long a process trusts a verified key before reading it again, by default: 500 ms. */
export const DEFAULT_VERIFY_CACHE_MS = 500;

/** The longest verify cache: revocation must reach every process within a second. */
export const MAX_VERIFY_CACHE_MS = 1_000;

/** The most verified keys a process keeps in its cache. */
const MAX_CACHED_KEYS = 10_000;

/** Options of {@link createAccessKeys}: the same connection options as `createErrand`, and the keys' own. */
export interface AccessKeysOptions extends EngineOptions {
  /** The requests a minute of a key created without its own. Default {@link DEFAULT_REQUESTS_PER_MINUTE}. */
  requestsPerMinute?: number;
  /**
   * How long a verified key is trusted before it is read again, in ms: 0 to
   * 1,000 (0: read on every `verify`). Default {@link DEFAULT_VERIFY_CACHE_MS}.
   */
  verifyCacheMs?: number;
}

/** What `create` takes. */
export interface CreateAccessKeyOptions {
  /** What the key may do: at least one scope. */
  scopes: readonly AccessScope[];
  /** The only agents it may fire. Default every agent. */
  agents?: readonly string[];
  /** The tenant it acts for (see {@link AccessGrant.tenant}). Default none: every run. */
  tenant?: string;
  /** A name for people (`ci`, `acme-prod`), shown by `list`. */
  name?: string;
  /** Its own requests a minute, instead of the default of {@link AccessKeysOptions}. */
  requestsPerMinute?: number;
}

/** Whether a request may go ahead; when not, how long until it may. */
export type Admission = { admitted: true } | { admitted: false; retryAfterMs: number };

/** The access keys of one prefix. */
export interface AccessKeys {
  /**
   * Creates a key: `key` is shown this once (only its hash is kept), `grant`
   * is what it allows. Throws `invalid_spec` for no scopes, an unknown scope,
   * an empty agent list or a malformed tenant.
   */
  create(options: CreateAccessKeyOptions): Promise<{ key: string; grant: AccessGrant }>;
  /** Every key, oldest first: its id, name, scopes, agents, tenant, dates. Never the key or its hash. */
  list(): Promise<AccessKeySummary[]>;
  /** Revokes a key: true when it existed. Every process refuses it within a second. */
  revoke(keyId: string): Promise<boolean>;
  /**
   * The grant of `key`, or `undefined` for a key that is unknown, revoked or
   * wrong. A string that cannot be a key is refused without reading Redis.
   */
  verify(key: string): Promise<AccessGrant | undefined>;
  /**
   * One request of `grant`'s key against its requests a minute (shared by
   * every process): admitted, or refused with the ms until one would be.
   * The loopback grant is always admitted.
   */
  admit(grant: AccessGrant): Promise<Admission>;
  /** Closes the connection. */
  close(): Promise<void>;
}

const CreateOptions = z.strictObject({
  scopes: z.array(AccessScopeName).min(1),
  agents: z.array(z.string().min(1).max(256)).min(1).optional(),
  tenant: TenantName.optional(),
  name: z.string().min(1).max(128).optional(),
  requestsPerMinute: z.number().int().positive().max(1_000_000).optional(),
});

function parseCreateOptions(options: CreateAccessKeyOptions): z.infer<typeof CreateOptions> {
  const parsed = CreateOptions.safeParse(options);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "options"}: ${issue.message}`,
  );
  throw new ErrandError("invalid_spec", `invalid access key: ${issues.join("; ")}`, {
    details: { issues },
  });
}

function checkedOption(name: string, value: number, min: number, max: number): number {
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw new ErrandError(
    "invalid_spec",
    `${name} must be an integer from ${min} to ${max}, got ${value}`,
  );
}

function script(file: string): string {
  return readLuaFile(new URL(`../../lua/${file}`, import.meta.url));
}

/** A list of HASH fields as HGETALL in a script answers them, as a record. */
function fieldsOf(flat: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(flat)) return fields;
  for (let index = 0; index + 1 < flat.length; index += 2) {
    fields[String(flat[index])] = String(flat[index + 1]);
  }
  return fields;
}

/**
 * Creates the access keys of `options.prefix` on a connection of their own.
 * Throws `invalid_spec` for a bad `requestsPerMinute` or `verifyCacheMs`,
 * `redis_unavailable` when no Redis is given.
 *
 * ```ts
 * const keys = createAccessKeys({ connection: process.env.REDIS_URL! });
 * const { key } = await keys.create({ scopes: ["fire", "read"], tenant: "acme" });
 * const grant = await keys.verify(key); // { keyId, scopes, tenant: "acme" }
 * ```
 */
export function createAccessKeys(options: AccessKeysOptions): AccessKeys {
  const defaultRate = checkedOption(
    "requestsPerMinute",
    options.requestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE,
    1,
    1_000_000,
  );
  const cacheMs = checkedOption(
    "verifyCacheMs",
    options.verifyCacheMs ?? DEFAULT_VERIFY_CACHE_MS,
    0,
    MAX_VERIFY_CACHE_MS,
  );
  const keys = engineKeys(options.prefix);
  const logger = options.logger ?? createLogger();
  const now = options.now ?? systemClock;
  const redis = openConnection(options.connection, {
    logger,
    name: "access keys",
    commandRetries: CLIENT_COMMAND_RETRIES,
  });
  const patiently = clientPatience(logger, options.connection);
  const verifyScript = defineLuaCommand(redis, {
    command: "errandVerifyAccessKey",
    lua: script("verify-access-key-1.lua"),
    numberOfKeys: 1,
  });
  const admitScript = defineLuaCommand(redis, {
    command: "errandAdmitRequest",
    lua: script("admit-request-1.lua"),
    numberOfKeys: 1,
  });
  /** Verified grants by the key's hash, each with when it stops being trusted (ms, local clock). */
  const cache = new Map<string, { grant: AccessGrant | undefined; until: number }>();

  const remember = (hash: string, grant: AccessGrant | undefined) => {
    if (cacheMs === 0) return;
    cache.delete(hash);
    if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
    cache.set(hash, { grant, until: performance.now() + cacheMs });
  };

  return {
    async create(createOptions) {
      const spec = parseCreateOptions(createOptions);
      const { key, keyId } = newAccessKey();
      const createdAt = now();
      const summary: AccessKeySummary = {
        keyId,
        ...(spec.name === undefined ? {} : { name: spec.name }),
        scopes: [...new Set(spec.scopes)],
        ...(spec.agents === undefined ? {} : { agents: [...new Set(spec.agents)] }),
        ...(spec.tenant === undefined ? {} : { tenant: spec.tenant }),
        ...(spec.requestsPerMinute === undefined
          ? {}
          : { requestsPerMinute: spec.requestsPerMinute }),
        createdAt: createdAt.toISOString(),
      };
      await patiently("creation of an access key", () =>
        redis
          .multi()
          .hset(keys.accessKey(keyId), recordFields(summary, hashOfKey(key)))
          .zadd(keys.accessKeyIds, createdAt.getTime(), keyId)
          .exec(),
      );
      logger.info(
        { keyId, scopes: summary.scopes, agents: summary.agents, tenant: summary.tenant },
        "access key created",
      );
      return { key, grant: grantOf(summary) };
    },

    async list() {
      return patiently("list of access keys", async () => {
        const ids = await redis.zrange(keys.accessKeyIds, 0, -1);
        const pipeline = redis.pipeline();
        for (const keyId of ids) pipeline.hgetall(keys.accessKey(keyId));
        const answers = (await pipeline.exec()) ?? [];
        return ids.flatMap((keyId, index) => {
          const [error, fields] = answers[index] ?? [];
          if (error) throw error;
          const summary = decodeRecord(keyId, fields as Record<string, string>);
          return summary === undefined ? [] : [summary];
        });
      });
    },

    async revoke(keyId) {
      if (!/^[0-9a-f]{16}$/.test(keyId)) return false;
      const answers = await patiently("revocation of an access key", () =>
        redis.multi().del(keys.accessKey(keyId)).zrem(keys.accessKeyIds, keyId).exec(),
      );
      for (const [hash, entry] of cache) if (entry.grant?.keyId === keyId) cache.delete(hash);
      const existed = Number(answers?.[0]?.[1] ?? 0) > 0;
      if (existed) logger.info({ keyId }, "access key revoked");
      return existed;
    },

    async verify(key) {
      const keyId = typeof key === "string" ? keyIdOf(key) : undefined;
      if (keyId === undefined) return undefined;
      const hash = hashOfKey(key);
      const cached = cache.get(hash);
      if (cached !== undefined && cached.until > performance.now()) return cached.grant;
      const flat = await patiently("verification of an access key", () =>
        verifyScript([keys.accessKey(keyId)], [hash, now().toISOString()]),
      );
      const summary = decodeRecord(keyId, fieldsOf(flat));
      const grant = summary === undefined ? undefined : grantOf(summary);
      remember(hash, grant);
      return grant;
    },

    async admit(grant) {
      if (grant.keyId === LOOPBACK_KEY_ID) return { admitted: true };
      const rate = grant.requestsPerMinute ?? defaultRate;
      const waitMs = Number(
        await patiently("admission of a request", () =>
          admitScript([keys.accessRate(grant.keyId)], [rate]),
        ),
      );
      return waitMs <= 0 ? { admitted: true } : { admitted: false, retryAfterMs: waitMs };
    },

    async close() {
      cache.clear();
      await closeWithin({
        close: () => closeConnection(redis),
        withinMs: CLOSE_ALLOWANCE_MS,
        cut: () => redis.disconnect(),
        logger,
      });
    },
  };
}
