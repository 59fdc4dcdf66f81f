/**
 * The limits of the structured-output schema subset (docs/architecture/structured-output.md#rule-6): the ones
 * OpenAI documents for strict structured outputs, plus guards of errand's own
 * (each says so) that keep checking and validating a hostile schema cheap.
 */

/** Objects may be nested at most this many levels deep; the root object is level 1. */
export const SCHEMA_MAX_OBJECT_DEPTH = 10;

/** At most this many object properties in the whole schema, definitions included. */
export const SCHEMA_MAX_PROPERTIES = 5_000;

/** At most this many enum values in the whole schema. */
export const SCHEMA_MAX_ENUM_VALUES = 1_000;

/**
 * At most this many characters in total of property names, definition names,
 * enum values and const values (a non-string value counts the length of its JSON).
 */
export const SCHEMA_MAX_TOTAL_CHARS = 120_000;

/** An enum with more than this many values is a large enum: see {@link SCHEMA_MAX_LARGE_ENUM_CHARS}. */
export const SCHEMA_LARGE_ENUM_VALUES = 250;

/** The string values of one large enum may total at most this many characters. */
export const SCHEMA_MAX_LARGE_ENUM_CHARS = 15_000;

/** The string formats strict structured outputs support. */
export const SCHEMA_STRING_FORMATS = [
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
] as const;

/**
 * errand's own guard, not an OpenAI limit: objects and arrays anywhere in the
 * schema value (annotations included) may be nested at most this deep, so
 * that checking a hostile schema cannot exhaust the stack.
 */
export const SCHEMA_MAX_JSON_NESTING = 100;

/**
 * errand's own guard, not an OpenAI limit: a schema's JSON text may be at
 * most this many characters, annotations included (a schema at OpenAI's own
 * limits, 120,000 characters of names written in `properties` and again in
 * `required`, stays well under it), so that checking and compiling it stays
 * cheap and the `run-queued` event that carries it stays small.
 */
export const SCHEMA_MAX_JSON_CHARS = 512 * 1024;

/**
 * errand's own guard, not an OpenAI limit: a value is checked against at most
 * this many schemas nested in one another — every property, item, `anyOf`
 * branch and `$ref` on the way counts one, and a recursive reference counts
 * its loop once — so that a long chain of `$ref`s cannot exhaust the stack of
 * the worker that validates an answer.
 */
export const SCHEMA_MAX_SCHEMA_DEPTH = 64;
