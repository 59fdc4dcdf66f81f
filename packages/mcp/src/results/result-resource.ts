/**
 * The reference to a run's whole result: `errand://runs/<runId>/result`, an
 * MCP resource (served by `resources/run-result.ts`) that a result carries in
 * place of an output or text too long to travel inline.
 */

/** The URI template of a run's whole result. */
export const RESULT_URI_TEMPLATE = "errand://runs/{runId}/result";

/** A reference to a run's whole result, with what reading it returns. */
export interface ResultRef {
  uri: string;
  contentType: "application/json";
  /** The size of what was cut, in bytes of UTF-8. */
  sizeBytes: number;
}

/** The URI of `runId`'s whole result. */
export function resultUri(runId: string): string {
  return `errand://runs/${encodeURIComponent(runId)}/result`;
}

/** A reference to `runId`'s whole result, for a value of `sizeBytes` that was cut. */
export function resultRef(runId: string, sizeBytes: number): ResultRef {
  return { uri: resultUri(runId), contentType: "application/json", sizeBytes };
}
