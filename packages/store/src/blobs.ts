/**
 * Blobs: large values of a run (a long tool result, a file) stored beside its
 * log and handed around as references `{ ref, contentType, sizeBytes, sha256 }`
 * (docs/architecture/tool-results.md#the-result-vocabulary). Numbered 0, 1, 2, … per run; they expire with the run.
 */
import { createHash } from "node:crypto";
import { ErrandError, ResourceRef } from "@errand/core";
import { blobUri, parseBlobUri } from "@errand/core/ops";
import { errorFromScriptReply } from "./errors.js";
import type { StoreKeys } from "./keys.js";
import type { RedisClient, StoreScripts } from "./scripts.js";

/** A stored blob: its value and its reference. */
export interface BlobContent {
  value: string;
  ref: ResourceRef;
}

type BlobMeta = Omit<ResourceRef, "ref">;

/**
 * Stores `value` as the run's next blob, in one script call, and returns its
 * reference. Throws an {@link ErrandError} `not_found` for a run without a head.
 */
export async function putBlob(
  { keys, scripts }: { keys: StoreKeys; scripts: StoreScripts },
  runId: string,
  value: string,
  contentType: string,
): Promise<ResourceRef> {
  const meta: BlobMeta = {
    contentType,
    sizeBytes: Buffer.byteLength(value, "utf8"),
    sha256: createHash("sha256").update(value, "utf8").digest("hex"),
  };
  const reply = await scripts.putBlob(
    [keys.runBlobs(runId), keys.runHead(runId)],
    [value, JSON.stringify(meta)],
  );
  const error = errorFromScriptReply(reply, { runId });
  if (error) throw error;
  return { ref: blobUri(runId, reply[1]), ...meta };
}

/**
 * The blob a reference (or its URI) points to, or `undefined` when it does not
 * exist or expired with its run. Throws an {@link ErrandError} `invalid_spec`
 * for a URI that is not a blob URI.
 */
export async function getBlob(
  redis: RedisClient,
  keys: StoreKeys,
  ref: ResourceRef | string,
): Promise<BlobContent | undefined> {
  const uri = typeof ref === "string" ? ref : ref.ref;
  const address = parseBlobUri(uri);
  if (address === undefined) {
    throw new ErrandError("invalid_spec", `not a blob URI: ${JSON.stringify(uri)}`, {
      details: { uri },
    });
  }
  const { runId, n } = address;
  const [value, metaJson] = await redis.hmget(keys.runBlobs(runId), String(n), `${n}:meta`);
  if (value === null || value === undefined || metaJson === null || metaJson === undefined) {
    return undefined;
  }
  const parsed = ResourceRef.safeParse({ ...JSON.parse(metaJson), ref: blobUri(runId, n) });
  if (!parsed.success) {
    throw new ErrandError(
      "internal",
      `blob ${uri} has metadata the store never writes: ${metaJson}`,
      {
        details: { uri },
      },
    );
  }
  return { value, ref: parsed.data };
}
