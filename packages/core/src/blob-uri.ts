/**
 * Addresses of the large values of a run (docs/architecture/tool-results.md#the-result-vocabulary): a value too large to
 * travel inline travels as a `ResourceRef` whose `ref` is
 * `resource://runs/<runId>/blobs/<n>`.
 */
import { ErrandError } from "./errors.js";

/** Where a blob lives: its run and its number within the run (0, 1, 2, …). */
export interface BlobAddress {
  runId: string;
  n: number;
}

/** A run id that can stand in a URI path unescaped (RFC 3986 unreserved characters). */
const RUN_ID_SEGMENT = /^[A-Za-z0-9._~-]+$/;
const BLOB_URI = /^resource:\/\/runs\/([A-Za-z0-9._~-]+)\/blobs\/(0|[1-9][0-9]*)$/;

function isRunIdSegment(runId: string): boolean {
  return RUN_ID_SEGMENT.test(runId) && runId !== "." && runId !== "..";
}

/** The URI of blob `n` of run `runId`. Throws an `internal` ErrandError for a malformed run id or number. */
export function blobUri(runId: string, n: number): string {
  if (!isRunIdSegment(runId)) {
    throw new ErrandError(
      "internal",
      `cannot address a blob of run ${JSON.stringify(runId)}: not a URL-safe run id`,
    );
  }
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ErrandError(
      "internal",
      `cannot address blob ${n}: a blob number is a whole number, 0 or more`,
    );
  }
  return `resource://runs/${runId}/blobs/${n}`;
}

/** The run and blob number a blob URI names, or `undefined` when `uri` is not one {@link blobUri} writes. */
export function parseBlobUri(uri: string): BlobAddress | undefined {
  const match = BLOB_URI.exec(uri);
  if (match === null) return undefined;
  const runId = match[1]!;
  const n = Number(match[2]);
  return isRunIdSegment(runId) && Number.isSafeInteger(n) ? { runId, n } : undefined;
}
