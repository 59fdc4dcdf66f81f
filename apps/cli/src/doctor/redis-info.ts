/**
 * Reading Redis's `INFO` and `CONFIG GET` replies, including on servers
 * where `CONFIG` is disabled (managed Redis services often rename it).
 */
import type { Redis } from "ioredis";

/** The `field:value` lines of an `INFO` reply, by field. */
function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** One `INFO` section of the server, parsed. */
export async function readInfo(redis: Redis, section: string): Promise<Map<string, string>> {
  return parseInfo(await redis.info(section));
}

/** A `CONFIG GET` parameter, or `undefined` when the server refuses `CONFIG`. */
export async function readConfig(redis: Redis, parameter: string): Promise<string | undefined> {
  try {
    const reply = (await redis.config("GET", parameter)) as string[];
    return reply[1];
  } catch {
    return undefined;
  }
}

/** `major.minor.patch` compared with `minimum`; true when at least as new. */
export function versionAtLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (const [i, want] of minimum.entries()) {
    const have = parts[i] ?? 0;
    if (have !== want) return have > want;
  }
  return true;
}
