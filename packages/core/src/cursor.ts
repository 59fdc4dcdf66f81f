/**
 * List cursors (docs/architecture/tool-results.md#the-result-vocabulary): a cursor carries the sort key of the last item of
 * a page, not an offset, so a page stays correct while items are added. It is
 * opaque to callers, URL-safe (base64url of JSON), and versioned, so its
 * format can change without misreading old cursors.
 */
import { decodeUtf8Base64Url, encodeUtf8Base64Url } from "./base64url.js";
import { ErrandError } from "./errors.js";
import { formatJsonPath } from "./json-path.js";
import { findLosslessJsonProblem } from "./lossless-json.js";

/** The version of the cursor format written today. */
export const CURSOR_VERSION = 1;

/** The cursor of a page that ends at the item whose sort key is `sortKey` (JSON values). */
export function encodeCursor(sortKey: readonly unknown[]): string {
  const problem = findLosslessJsonProblem(sortKey);
  if (problem !== undefined) {
    throw new ErrandError(
      "internal",
      `cannot encode a cursor: ${formatJsonPath(problem.path, "the sort key")} ${problem.problem}`,
    );
  }
  return encodeUtf8Base64Url(JSON.stringify({ v: CURSOR_VERSION, k: sortKey }));
}

/**
 * The sort key a cursor carries. Anything that {@link encodeCursor} did not
 * write is refused with an `invalid_spec` ErrandError.
 */
export function decodeCursor(cursor: string): unknown[] {
  if (typeof cursor !== "string" || cursor === "")
    return invalidCursor("it is empty or not a string");
  const text = decodeUtf8Base64Url(cursor);
  if (text === undefined) return invalidCursor("it is not base64url-encoded UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalidCursor("it does not hold JSON");
  }
  if (typeof value !== "object" || value === null || !("v" in value) || !("k" in value)) {
    return invalidCursor("it is not an errand cursor");
  }
  if (value.v !== CURSOR_VERSION) {
    return invalidCursor(
      `it has version ${JSON.stringify(value.v)}, which this version of errand cannot read`,
    );
  }
  if (!Array.isArray(value.k)) return invalidCursor("it holds no sort key");
  return value.k;
}

function invalidCursor(why: string): never {
  throw new ErrandError(
    "invalid_spec",
    `invalid cursor: ${why}; pass the nextCursor of the previous page unchanged, or omit the cursor to start from the first page`,
  );
}
