/**
 * A run's stored large value (a tool result over the inline limit), for the
 * page's "show all": JSON comes back parsed, anything else as text, both
 * with their secrets redacted. Text that was stored as JSON but does not
 * parse is sent as text.
 */
import { ErrandError, redactSecrets } from "@errand/core";
import { blobUri } from "@errand/core/ops";
import type { DashboardContext } from "../context.js";
import { showWhole } from "../present/show-value.js";
import { requireRunId } from "./run-view.js";

/** `GET /api/runs/:runId/blobs/:n`. */
export interface BlobView {
  ref: string;
  contentType: string;
  sizeBytes: number;
  /** The parsed, redacted value of a JSON blob. */
  json?: unknown;
  /** The text of a blob that is not JSON, redacted. */
  text?: string;
}

/** Reads blob `n` of the run. Throws `invalid_spec` or `not_found`. */
export async function readBlob(
  context: DashboardContext,
  runId: string,
  n: number,
): Promise<BlobView> {
  requireRunId(runId);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ErrandError(
      "invalid_spec",
      `invalid blob number ${n}: a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`,
    );
  }
  const blob = await context.errand.store.getBlob(blobUri(runId, n));
  if (blob === undefined) {
    throw new ErrandError("not_found", `run ${runId} has no blob ${n} (never stored, or expired)`);
  }
  const { ref, contentType, sizeBytes } = blob.ref;
  const base = { ref, contentType, sizeBytes };
  if (contentType.includes("json")) {
    try {
      return { ...base, json: showWhole(JSON.parse(blob.value)) };
    } catch {
      // not JSON after all: shown as text below
    }
  }
  return { ...base, text: redactSecrets(blob.value) };
}
