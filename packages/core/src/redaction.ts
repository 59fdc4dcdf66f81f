/**
 * Secrets, recognised one way everywhere errand shows or logs a value: the
 * engine's logs, the dashboard, the CLI's `--json`, traces and the previews
 * of cut tool results all use {@link isSecretKey} and `redactSecrets`
 * (`redact-secrets.ts`), so a key hidden in one is hidden in all.
 *
 * A key names a secret when, lower-cased with everything but letters and
 * digits removed (`secretKey`, `secret_key` and `SECRET-KEY` all read
 * `secretkey`), it contains one of {@link SECRET_KEY_WORDS} or ends with one
 * of {@link SECRET_KEY_ENDINGS}. The rule errs on the side of hiding: a
 * `secretary` field is hidden too.
 *
 * Text is another matter: a tool's error message may quote a credential.
 * {@link redactSecretText} hides what looks like one in free text (an
 * `Authorization` scheme's credentials, well-known API key shapes,
 * `password=…` pairs, a URL's password); the engine's logs pass every line
 * through it, and `redactSecrets` every string of a value.
 */

/** What a redacted value is replaced with, everywhere. */
export const REDACTED = "[redacted]";

/** A key containing one of these (normalised) names a secret. */
const SECRET_KEY_WORDS: readonly string[] = [
  "secret",
  "password",
  "passwd",
  "passphrase",
  "apikey",
  "privatekey",
  "accesskey",
  "credential",
  "authorization",
  "cookie",
  "sessionid",
];

/**
 * A key ending with one of these (normalised) names a secret: `token`,
 * `accessToken`, `x-auth-token`, `basicAuth`, `db_pwd` — but not
 * `inputTokens` or `author`.
 */
const SECRET_KEY_ENDINGS: readonly string[] = ["token", "auth", "pwd"];

/** `key` lower-cased, with everything but ASCII letters and digits removed. */
function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** True when a property named `key` holds a secret. */
export function isSecretKey(key: string): boolean {
  const normalised = normaliseKey(key);
  return (
    SECRET_KEY_WORDS.some((word) => normalised.includes(word)) ||
    SECRET_KEY_ENDINGS.some((ending) => normalised.endsWith(ending))
  );
}

/** `Authorization`-style credentials: `Bearer <token>`, `Basic <base64>`. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi;

/** Well-known API key shapes: OpenAI and Anthropic (`sk-…`), GitHub (`ghp_…`), Slack (`xoxb-…`), AWS access key ids. */
const KEY_SHAPES =
  /\b(?:sk-[A-Za-z0-9_-]{16,}|gh[opsur]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g;

/** The longest value {@link NAMED_VALUE} hides. */
const MAX_SECRET_CHARS = 256;

/**
 * `name=value`, `name: value` or `"name": "value"` (inside a JSON string too,
 * its quotes escaped): the value is quoted, or runs up to a space, `&`, `,`
 * or `;`, and is at most {@link MAX_SECRET_CHARS} long, which keeps the
 * search linear. A quoted value the text ends in before its closing quote
 * (text cut short) counts too. The name starts where no name character
 * precedes it.
 */
const NAMED_VALUE = new RegExp(
  String.raw`(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)((?:\\?["'])?\s*[=:]\s*)` +
    String.raw`(\\"[^"\\]{0,${MAX_SECRET_CHARS}}(?:\\"|\\?$)|"[^"]{0,${MAX_SECRET_CHARS}}(?:"|$)|'[^']{0,${MAX_SECRET_CHARS}}(?:'|$)|[^\s&,;"'\\]{1,${MAX_SECRET_CHARS}})`,
  "g",
);

/** A character that ends an unquoted value. */
const VALUE_END = /[\s&,;"'\\]/;

/** `value` replaced by {@link REDACTED}, inside the same quotes. */
function redactedLike(value: string): string {
  const quote = ['\\"', '"', "'"].find((q) => value.startsWith(q)) ?? "";
  return `${quote}${REDACTED}${quote}`;
}

/**
 * `text` with the value of every `name=value` pair whose name is a secret's
 * hidden. The value of any other pair is searched too (it may hold one).
 */
function redactNamedValues(text: string): string {
  const pairs = new RegExp(NAMED_VALUE);
  let redacted = "";
  let copied = 0;
  for (let pair = pairs.exec(text); pair !== null; pair = pairs.exec(text)) {
    const [whole, name = "", separator = "", value = ""] = pair;
    if (isSecretKey(name)) {
      redacted += `${text.slice(copied, pair.index)}${name}${separator}${redactedLike(value)}`;
      copied = pair.index + whole.length;
      // An unquoted value longer than the pattern takes is hidden to its end.
      const quoted = VALUE_END.test(value[0] ?? "");
      while (!quoted && copied < text.length && !VALUE_END.test(text[copied]!)) copied += 1;
      pairs.lastIndex = copied;
    } else {
      pairs.lastIndex = pair.index + name.length;
    }
  }
  return redacted + text.slice(copied);
}

/**
 * What every secret {@link redactSecretText} hides comes with (a scheme's
 * word, a key shape's start, `=` or `:`): text without any is returned at
 * once, which is most short strings (ids, names) a value holds.
 */
const MAY_HOLD_SECRET = /[=:]|sk-|gh[opsur]_|xox|AKIA|bearer|basic|token/i;

/**
 * The password of a URL: `redis://user:s3cret@host`. A placeholder in angle
 * brackets (`redis://<user>:<password>@host`, as a hint shows it) is kept.
 */
const URL_PASSWORD =
  /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:@/]*:)(?!<[^\s@/<>]*>@)[^\s@/]+@/g;

/**
 * `text` with what looks like a secret replaced by {@link REDACTED}: the
 * credentials after `Bearer`, `Basic` or `Token`; keys shaped like OpenAI's
 * or Anthropic's (`sk-…`), GitHub's, Slack's and AWS access key ids; the
 * value of a `name=value` or `name: value` pair whose name is a secret's
 * ({@link isSecretKey}: `password=…`, `api_key: …`, `"token": "…"`); and a
 * URL's password. Every pattern runs in time linear in the text.
 */
export function redactSecretText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  const shapesHidden = text
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(KEY_SHAPES, REDACTED)
    .replace(URL_PASSWORD, (_match, before: string) => `${before}${REDACTED}@`);
  return redactNamedValues(shapesHidden);
}
