/**
 * The version of an agent: what a run is pinned to, so that a run is only
 * ever started or resumed by the code it was fired for (docs/architecture/firing.md#versions). An agent that gives its `version` has that one; any other
 * has a digest of what its runs depend on: its instructions, its tools (names,
 * descriptions and parameter schemas), its model's name and its input and
 * output schemas.
 */
import { createHash } from "node:crypto";
import type { Agent } from "./model.js";

/** How many hex digits of the digest a computed version keeps. */
const VERSION_DIGEST_LENGTH = 12;

/** `value` as JSON with every object's keys sorted, so equal values give equal text. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${sortedJson(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The version of `agent`: its own `version` when it gives one, else `h` and
 * the first 12 hex digits of the SHA-256 of its instructions, tools (sorted
 * by name), model name and input and output schemas. Pure: the same definition gives
 * the same version in every process, and any change to those parts gives
 * another.
 */
export function agentVersion(
  agent: Pick<Agent, "instructions" | "tools" | "model" | "inputSchema" | "outputSchema"> & {
    version?: string;
  },
): string {
  if (agent.version !== undefined) return agent.version;
  const described = {
    instructions: agent.instructions,
    tools: [...agent.tools]
      .map(({ spec }) => ({
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    model: typeof agent.model === "string" ? agent.model : agent.model.name,
    inputSchema: agent.inputSchema,
    outputSchema: agent.outputSchema,
  };
  const digest = createHash("sha256").update(sortedJson(described)).digest("hex");
  return `h${digest.slice(0, VERSION_DIGEST_LENGTH)}`;
}
