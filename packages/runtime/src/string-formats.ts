/**
 * The string `format`s strict structured outputs support, checked in time
 * linear in the string: each shape is an RE2 pattern (never a backtracking
 * regular expression, whatever the answer a model sends), and what a
 * pattern cannot say well (the days of a month, a hostname's length) is
 * plain code on the matched, fixed-width parts.
 */
import { compileLinearPattern, type LinearPattern, SCHEMA_STRING_FORMATS } from "@errand/core/ops";

/** A string format strict structured outputs support. */
export type StringFormat = (typeof SCHEMA_STRING_FORMATS)[number];

function linear(source: string): LinearPattern {
  const compiled = compileLinearPattern(source);
  if (!compiled.ok)
    throw new Error(`format pattern ${source} does not compile: ${compiled.problem}`);
  return compiled.pattern;
}

const DATE = "\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])";
const TIME =
  "(?:[01]\\d|2[0-3]):[0-5]\\d:(?:[0-5]\\d|60)(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)";
const IPV4_PART = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)";
const H16 = "[0-9a-fA-F]{1,4}";

const SHAPES: Record<StringFormat, LinearPattern> = {
  "date-time": linear(`^${DATE}T${TIME}$`),
  date: linear(`^${DATE}$`),
  time: linear(`^${TIME}$`),
  duration: linear(
    "^P(?:\\d+W|(?:\\d+Y)?(?:\\d+M)?(?:\\d+D)?(?:T(?:\\d+H)?(?:\\d+M)?(?:\\d+(?:[.,]\\d+)?S)?)?)$",
  ),
  email: linear(
    "^(?:[A-Za-z0-9_'+-]+\\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\\.)+[A-Za-z]{2,}$",
  ),
  hostname: linear(
    "^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\\.?$",
  ),
  ipv4: linear(`^(?:${IPV4_PART}\\.){3}${IPV4_PART}$`),
  ipv6: linear(
    `^(?:(?:${H16}:){7}${H16}|(?:${H16}:){1,7}:|(?:${H16}:){1,6}:${H16}|(?:${H16}:){1,5}(?::${H16}){1,2}|(?:${H16}:){1,4}(?::${H16}){1,3}|(?:${H16}:){1,3}(?::${H16}){1,4}|(?:${H16}:){1,2}(?::${H16}){1,5}|${H16}:(?::${H16}){1,6}|:(?:(?::${H16}){1,7}|:))$`,
  ),
  uuid: linear("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"),
};

/** The days of `month` (1–12) in `year`. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The date at the start of `text` (`YYYY-MM-DD`, already matched) names a day of its month. */
function isRealDay(text: string): boolean {
  const day = Number(text.slice(8, 10));
  return day <= daysInMonth(Number(text.slice(0, 4)), Number(text.slice(5, 7)));
}

/** What the shape cannot say: a real day, a duration with a part, a hostname within 253 characters. */
const EXTRA_CHECKS: Partial<Record<StringFormat, (text: string) => boolean>> = {
  "date-time": isRealDay,
  date: isRealDay,
  duration: (text) => text !== "P" && !text.endsWith("T"),
  hostname: (text) => text.replace(/\.$/, "").length <= 253,
};

/** True when `text` is a valid `format` string (RFC 3339 dates and times, ISO 8601 durations, …). */
export function matchesFormat(format: StringFormat, text: string): boolean {
  return SHAPES[format].test(text) && (EXTRA_CHECKS[format]?.(text) ?? true);
}

/** True when `format` is one {@link matchesFormat} checks. */
export function isStringFormat(format: unknown): format is StringFormat {
  return (SCHEMA_STRING_FORMATS as readonly unknown[]).includes(format);
}
