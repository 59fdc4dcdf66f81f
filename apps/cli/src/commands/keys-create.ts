/**
 * `errand keys create`: makes an access key for the HTTP API and the MCP
 * server and prints it, the one time it is ever shown (only its hash is kept).
 */
import { ACCESS_SCOPES, type AccessGrant, type AccessScope } from "@errand/engine";
import { withAccessKeys } from "../access-keys-client.js";
import { usageError } from "../args.js";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLines } from "../output.js";

/** The line that goes with the key. */
const SHOWN_ONCE =
  "This key will not be shown again: store it now. `errand keys list` shows its id, never the key.";

/** The values of a comma-separated option, without empty ones. */
function listOf(text: string | undefined): string[] | undefined {
  return text
    ?.split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function scopesOf(text: string | undefined): AccessScope[] {
  const scopes = listOf(text) ?? [];
  const unknown = scopes.filter((scope) => !(ACCESS_SCOPES as readonly string[]).includes(scope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw usageError(
      `keys create: --scopes takes a comma-separated list of ${ACCESS_SCOPES.join(", ")}${unknown.length > 0 ? `, not ${unknown.join(", ")}` : ""}`,
    );
  }
  return scopes as AccessScope[];
}

function describeGrant(grant: AccessGrant, name: string | undefined): string {
  return [
    `keyId ${grant.keyId}`,
    ...(name === undefined ? [] : [`name ${name}`]),
    `scopes ${grant.scopes.join(",")}`,
    `agents ${grant.agents?.join(",") ?? "all"}`,
    `tenant ${grant.tenant ?? "none (every run)"}`,
  ].join(" · ");
}

/** `keys create`. */
export const keysCreateCommand: CommandSpec = {
  usage:
    "errand keys create --scopes <scopes> [--agents <names>] [--tenant <tenant>] [--name <name>] [--rpm N] [--json]",
  description: [
    "Creates an access key for the HTTP API and the MCP server and prints it once:",
    "only its SHA-256 is kept, so it can never be shown again. --scopes is a",
    "comma-separated list of fire, read, cancel, answer. A key with --tenant fires",
    "only under that tenant and sees only its runs; with --agents it fires only",
    "those agents. --json prints { key, keyId, scopes, agents?, tenant?, name?,",
    "requestsPerMinute?, notice }.",
  ].join("\n"),
  positionals: [],
  options: {
    scopes: {
      type: "string",
      value: "<scopes>",
      description: "what the key may do, comma-separated: fire, read, cancel, answer",
    },
    agents: {
      type: "string",
      value: "<names>",
      description: "the only agents it may fire, comma-separated (default: every agent)",
    },
    tenant: {
      type: "string",
      value: "<tenant>",
      description: "the tenant it acts for (default: none, every run)",
    },
    name: { type: "string", value: "<name>", description: "a name for people, shown by keys list" },
    rpm: {
      type: "string",
      value: "<N>",
      description: "its requests a minute (default: the API's, 600 unless configured)",
    },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const scopes = scopesOf(args.string("scopes"));
    const agents = listOf(args.string("agents"));
    const tenant = args.string("tenant");
    const name = args.string("name");
    const rpm =
      args.string("rpm") === undefined
        ? undefined
        : args.integer("rpm", { min: 1, max: 1_000_000 }, 1);
    const { key, grant } = await withAccessKeys(args, io, (keys) =>
      keys.create({
        scopes,
        ...(agents === undefined ? {} : { agents }),
        ...(tenant === undefined ? {} : { tenant }),
        ...(name === undefined ? {} : { name }),
        ...(rpm === undefined ? {} : { requestsPerMinute: rpm }),
      }),
    );
    if (args.flag("json")) {
      writeJson(io, { key, ...grant, ...(name === undefined ? {} : { name }), notice: SHOWN_ONCE });
    } else {
      writeLines(io, [key, describeGrant(grant, name), SHOWN_ONCE]);
    }
    return EXIT.ok;
  },
};
