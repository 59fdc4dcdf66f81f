/**
 * `errand keys revoke <keyId>`: revokes an access key; every process
 * refuses it within a second.
 */
import { withAccessKeys } from "../access-keys-client.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** `keys revoke`. */
export const keysRevokeCommand: CommandSpec = {
  usage: "errand keys revoke <keyId> [--json]",
  description: [
    "Revokes the access key with this id (as keys list shows it): every API and MCP",
    "process refuses it within a second. Exits 1 when no key has the id. --json",
    "prints { keyId, revoked }.",
  ].join("\n"),
  positionals: [{ name: "keyId", description: "the key's id, from keys list" }],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const keyId = args.positional(0, "keyId");
    const revoked = await withAccessKeys(args, io, (keys) => keys.revoke(keyId));
    if (args.flag("json")) writeJson(io, { keyId, revoked });
    else writeLines(io, [revoked ? `${keyId}: revoked` : `${keyId}: no such key`]);
    return revoked ? EXIT.ok : EXIT.failure;
  },
};
