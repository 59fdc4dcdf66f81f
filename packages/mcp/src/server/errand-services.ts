/**
 * What the MCP tools reach errand through (docs/architecture/mcp.md#the-server):
 * an Errand-shaped client — the calls of `createErrand`'s client the tools
 * use, by the same names, so a client narrowed to what a caller may do
 * (its tenant, its scopes) takes its place unchanged — and the catalog of
 * agents `list_agents` reads.
 */
import type { Errand } from "@errand/engine";
import type { AgentListing } from "../agents/agent-catalog.js";
import type { ReportUnexpected } from "../results/tool-answer.js";

/** The calls of the errand client the tools make. */
export type McpErrand = Pick<
  Errand,
  "fireMany" | "collect" | "result" | "cancel" | "events" | "waitpoints"
>;

/** What one MCP session's tools act through. */
export interface ErrandMcpServices {
  /** The client the tools fire, read, cancel and answer through. */
  errand: McpErrand;
  /** The agents a caller may see and fire, as `list_agents` shows them. */
  agents(): Promise<AgentListing[]>;
  /** Where an error that is not errand's own is told (the server's log); the caller only sees `internal`. */
  reportUnexpected: ReportUnexpected;
}
