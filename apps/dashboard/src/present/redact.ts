/**
 * Secrets never reach the page in clear. Every value the dashboard sends —
 * inputs, outputs, tool arguments and results, metadata, blobs — goes
 * through {@link redactSecrets}: a property whose key names a secret (the
 * secret keys of the engine's log redaction: `apiKey`, `authorization`,
 * `password`, `secret`, `token`, at any depth, whatever their case or
 * separators, and keys ending in one of them such as `accessToken` or
 * `client_secret`) has its value replaced by the engine's `[redacted]`.
 * Unlike the logs, inputs and outputs themselves are shown: seeing them is
 * what the dashboard is for.
 */
import { REDACTED, REDACTED_KEYS } from "@errand/engine";

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

/** `value` with every secret property's value replaced by `[redacted]` (a copy; `value` is untouched). */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      isSecretKey(key) ? REDACTED : redactSecrets(inner),
    ]),
  );
}
