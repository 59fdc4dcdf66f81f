/**
 * Which property names hold secrets: the secret keys of the engine's log
 * redaction (`apiKey`, `authorization`, `password`, `secret`, `token`),
 * whatever their case or separators, and keys ending in one of them such as
 * `accessToken` or `client_secret`. Their values never reach the page in
 * clear (see `show-value.ts`) and are never searched.
 */
import { REDACTED_KEYS } from "@errand/engine";

/** The log's redacted keys that name secrets (not the run's own data such as `input`). */
const DATA_KEYS = new Set<string>(["input", "output", "args", "result"]);

/** The secret keys, normalized (lower case, letters and digits only). */
export const SECRET_KEY_NAMES: readonly string[] = REDACTED_KEYS.filter(
  (key) => !DATA_KEYS.has(key),
).map((key) => normalizeKey(key));

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** True when a property named `key` holds a secret. */
export function isSecretKey(key: string): boolean {
  const normalized = normalizeKey(key);
  return SECRET_KEY_NAMES.some((name) => normalized.endsWith(name));
}
