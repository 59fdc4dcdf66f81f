/**
 * The shape of an access key and what is kept of it. A key is
 * `errk_<keyId>_<secret>`: `keyId` 16 hex digits (public: logs and
 * `errand keys list` name a key by it), `secret` 32 random bytes in
 * base64url. Only the SHA-256 of the whole key is stored; a string that
 * does not have this shape is refused before anything is read.
 */
import { createHash, randomBytes } from "node:crypto";

/** The prefix every key starts with, so a leaked one is recognisable (and scannable). */
export const ACCESS_KEY_PREFIX = "errk_";

const KEY_SHAPE = /^errk_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

/** A new key and its id. */
export function newAccessKey(): { key: string; keyId: string } {
  const keyId = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { key: `${ACCESS_KEY_PREFIX}${keyId}_${secret}`, keyId };
}

/** The keyId of `key` when it has a key's shape; `undefined` for anything that cannot be a key. */
export function keyIdOf(key: string): string | undefined {
  return KEY_SHAPE.exec(key)?.[1];
}

/** What is stored of a key: its SHA-256, in hex. */
export function hashOfKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
