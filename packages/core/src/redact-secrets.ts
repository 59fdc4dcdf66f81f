/**
 * The one pass that hides the secrets of a value, whatever its shape, before
 * the value is serialised, cut or shown: the engine's logs, the CLI's
 * `--json`, the dashboard's API, traces and the preview a cut tool result
 * keeps in the log all go through {@link redactSecrets}. Redacting after a
 * cut cannot work: a value cut in the middle of `"apiKey":"sk-…"` is text no
 * rule recognises, so every caller redacts first.
 *
 * A value is hidden when
 * - it is a property whose key names a secret (`isSecretKey`), at any depth;
 * - it is the value of a pair whose name names a secret: the second item of
 *   a two-item array (`["apiKey", "…"]`, as `Object.entries` and header lists
 *   write them) or the `value` of an object with a `name` or `key`
 *   (`{ name: "apiKey", value: "…" }`, `{ Key: "token", Value: "…" }`);
 * - it sits in a string: a string that holds a JSON object, array or
 *   string (JSON written as text twice) is parsed and redacted by these same rules (and written back as JSON if
 *   anything was hidden), any other string goes through `redactSecretText`
 *   (credentials after `Bearer`, well-known key shapes, `password=…`, a URL's
 *   password), which is how error messages are redacted too.
 */
import { isPlainObject } from "./plain-object.js";
import { isSecretKey, REDACTED, redactSecretText } from "./redaction.js";

/** Options of {@link redactSecrets}. */
export interface RedactOptions {
  /** Keys (exact names) whose values are redacted too, besides secrets: the logs hide run data this way. */
  alsoKeys?: readonly string[];
}

/** The longest name of a pair that is taken for a key (a longer string is text, not a name). */
const MAX_PAIR_NAME_CHARS = 64;

/** A string that can be a key: short, no whitespace. */
const KEY_LIKE = /^\S+$/;

/**
 * A copy of `value` with every secret it holds replaced by
 * {@link REDACTED}, by the rules of this module; a string comes back as a
 * string. Only plain objects and arrays are copied; anything else but a
 * string is kept as it is. Iterative, so a deeply nested value cannot
 * exhaust the stack. `value` is untouched.
 */
export function redactSecrets(value: string, options?: RedactOptions): string;
export function redactSecrets(value: unknown, options?: RedactOptions): unknown;
export function redactSecrets(value: unknown, options: RedactOptions = {}): unknown {
  const also = new Set(options.alsoKeys ?? []);
  return redactValue(value, (key) => also.has(key) || isSecretKey(key)).value;
}

/** A redacted copy, and whether anything was hidden in it. */
interface Redacted {
  value: unknown;
  changed: boolean;
}

function redactValue(value: unknown, hidden: (key: string) => boolean): Redacted {
  let changed = false;
  const root: Record<string, unknown> = {};
  const work: { from: unknown; into: object; key: string | number }[] = [
    { from: value, into: root, key: "value" },
  ];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { from, into, key } = item;
    let copy: unknown = from;
    if (typeof from === "string") {
      copy = redactString(from, hidden);
      changed ||= copy !== from;
    } else if (Array.isArray(from)) {
      const list: unknown[] = new Array(from.length);
      const isSecretPair = from.length === 2 && namesSecret(from[0]);
      from.forEach((element, index) => {
        if (isSecretPair && index === 1) list[index] = REDACTED;
        else work.push({ from: element, into: list, key: index });
      });
      changed ||= isSecretPair;
      copy = list;
    } else if (isPlainObject(from)) {
      const isSecretPair = Object.entries(from).some(
        ([name, inner]) => isPairNameKey(name) && namesSecret(inner),
      );
      const object: Record<string, unknown> = {};
      for (const [name, inner] of Object.entries(from)) {
        const hide = hidden(name) || (isSecretPair && name.toLowerCase() === "value");
        // Every key is placed now, in order; the values of the others are copied later.
        setOwn(object, name, hide ? REDACTED : undefined);
        if (hide) changed = true;
        else work.push({ from: inner, into: object, key: name });
      }
      copy = object;
    }
    setOwn(into, key, copy);
  }
  return { value: root.value, changed };
}

/**
 * `text` redacted: JSON text by the rules for values (written back as JSON
 * only when something was hidden, else kept as it was), other text by
 * `redactSecretText`. JSON that cannot be written back (nested too deep for
 * `JSON.stringify`) but held a secret is hidden whole.
 */
function redactString(text: string, hidden: (key: string) => boolean): string {
  const parsed = parseJsonText(text);
  if (parsed === undefined) return redactSecretText(text);
  const inner = redactValue(parsed.value, hidden);
  if (!inner.changed) return text;
  try {
    return JSON.stringify(inner.value);
  } catch {
    return REDACTED;
  }
}

/**
 * The value of `text` when it is a JSON object, array or string (JSON
 * written as text more than once), else undefined.
 */
function parseJsonText(text: string): { value: unknown } | undefined {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[" && first !== '"') return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** True when `value` is a string that reads as a key naming a secret (`apiKey`, `--password`). */
function namesSecret(value: unknown): boolean {
  return (
    typeof value === "string" &&
    value.length <= MAX_PAIR_NAME_CHARS &&
    KEY_LIKE.test(value) &&
    isSecretKey(value)
  );
}

/** True for the key of a pair object's name: `name`, `key` (any case). */
function isPairNameKey(key: string): boolean {
  const lower = key.toLowerCase();
  return lower === "name" || lower === "key";
}

/** Sets an own data property, even one named `__proto__`. */
function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
