/**
 * Opening the access keys for one `errand keys` command: the Redis and
 * prefix as every command takes them (checked first), closed when done.
 */
import { type AccessKeys, createAccessKeys } from "@errand/engine";
import type { ParsedArgs } from "./args.js";
import { checkedConnection } from "./errand-client.js";
import type { CliIO } from "./io.js";

/** Runs `use` with the access keys, closing them afterwards however `use` ends. */
export async function withAccessKeys<T>(
  args: ParsedArgs,
  io: CliIO,
  use: (keys: AccessKeys) => Promise<T>,
): Promise<T> {
  const keys = createAccessKeys(await checkedConnection(args, io));
  try {
    return await use(keys);
  } finally {
    await keys.close();
  }
}
