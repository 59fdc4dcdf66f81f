/**
 * `errand keys list`: every access key, by id — never the key itself.
 */
import { withAccessKeys } from "../access-keys-client.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";
import { formatTable } from "../table.js";

/** `keys list`. */
export const keysListCommand: CommandSpec = {
  usage: "errand keys list [--json]",
  description: [
    "Lists the access keys, oldest first: id, name, scopes, agents, tenant, when each",
    "was created and last used (to within a second). Never the key, which is not kept.",
    "--json prints { items: [{ keyId, name?, scopes, agents?, tenant?,",
    "requestsPerMinute?, createdAt, lastUsedAt? }], count }.",
  ].join("\n"),
  positionals: [],
  options: { ...JSON_OPTION, ...CONNECTION_OPTIONS },
  async run(args, io) {
    const items = await withAccessKeys(args, io, (keys) => keys.list());
    if (args.flag("json")) {
      writeJson(io, { items, count: items.length });
      return EXIT.ok;
    }
    if (items.length === 0) {
      writeLines(io, ["no access keys; create one with errand keys create --scopes …"]);
      return EXIT.ok;
    }
    const rows = items.map((item) => [
      item.keyId,
      item.name ?? "",
      item.scopes.join(","),
      item.agents?.join(",") ?? "all",
      item.tenant ?? "",
      item.createdAt,
      item.lastUsedAt ?? "never",
    ]);
    writeLines(
      io,
      formatTable([
        ["KEY ID", "NAME", "SCOPES", "AGENTS", "TENANT", "CREATED", "LAST USED"],
        ...rows,
      ]),
    );
    return EXIT.ok;
  },
};
