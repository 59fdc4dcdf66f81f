/**
 * `--metadata key=value`, the labels a command gives the runs it fires
 * (`errand fire`, and each tick of `errand schedules upsert`): the option
 * and the parser both commands share.
 */

import { usageError } from "./args.js";
import type { OptionSpec } from "./command-syntax.js";

/** The repeatable `--metadata` option, its help line `description`. */
export function metadataOption(description: string): OptionSpec {
  return { type: "string", value: "<key=value>", multiple: true, description };
}

/**
 * The labels of `command`'s `--metadata key=value` options, in the order
 * given. The value is everything after the first `=` (it may be empty); a
 * pair without `=`, an empty key or a key given twice is a usage error.
 */
export function parseMetadata(command: string, pairs: readonly string[]): Record<string, string> {
  const metadata = new Map<string, string>();
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals === -1) {
      throw usageError(`${command}: --metadata takes key=value, not ${JSON.stringify(pair)}`);
    }
    const key = pair.slice(0, equals);
    if (key === "") {
      throw usageError(`${command}: --metadata ${JSON.stringify(pair)} has an empty key`);
    }
    if (metadata.has(key)) {
      throw usageError(`${command}: --metadata gives the key ${JSON.stringify(key)} twice`);
    }
    metadata.set(key, pair.slice(equals + 1));
  }
  return Object.fromEntries(metadata);
}
