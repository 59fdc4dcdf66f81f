/**
 * The command that prints the page after this one, for list commands that
 * end a page with `more: …`.
 */
import type { ParsedArgs } from "./args.js";
import { redactUrl } from "./redis.js";
import { shellCommand } from "./shell-quote.js";

/**
 * `command` (e.g. `["errand", "runs", "list"]`) with the `repeated` options
 * as given to this one (so the same filters, page size and deployment) and
 * `--cursor <nextCursor>`. A `--redis` URL's credentials are shown as
 * `[redacted]`, never printed; `REDIS_URL` is the environment's, left out.
 */
export function nextPageCommand(
  args: ParsedArgs,
  command: readonly string[],
  repeated: readonly string[],
  nextCursor: string,
): string {
  const words = [...command];
  for (const option of repeated) {
    const value = args.string(option);
    if (value === undefined) continue;
    words.push(`--${option}`, option === "redis" ? redactUrl(value) : value);
  }
  return shellCommand([...words, "--cursor", nextCursor]);
}
