/**
 * Reading the API's query parameters: numbers stay what was written when
 * they are not whole numbers, so the reads refuse them with a message that
 * names the parameter (`invalid_spec`).
 */
import { ErrandError } from "@errand/core";
import type { ListOptions } from "@errand/engine";
import type { HeadStatus } from "@errand/store";

/** A query string's parameters. */
export type Query = Record<string, string | undefined>;

/** `value` as a whole number when it is written as one, else as given. */
export function numberParam(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  return /^\d+$/.test(value) ? Number(value) : (value as unknown as number);
}

/**
 * A non-negative whole number, or `fallback` when absent. Throws
 * `invalid_spec` for anything else, a number past `Number.MAX_SAFE_INTEGER`
 * included (it would not name an event or a blob: Redis would refuse it).
 */
export function wholeParam(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) {
    throw new ErrandError(
      "invalid_spec",
      `${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** The list filters and paging of `GET /api/runs` (`status`, `agent`, `parent`, `limit`, `cursor`). */
export function listOptionsOf(query: Query): ListOptions {
  const status = present(query.status) as HeadStatus | undefined;
  const agent = present(query.agent);
  const parentRunId = present(query.parent);
  const limit = numberParam(query.limit);
  const cursor = present(query.cursor);
  return {
    ...(status === undefined ? {} : { status }),
    ...(agent === undefined ? {} : { agent }),
    ...(parentRunId === undefined ? {} : { parentRunId }),
    ...(limit === undefined ? {} : { limit }),
    ...(cursor === undefined ? {} : { cursor }),
  };
}
