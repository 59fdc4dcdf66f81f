/**
 * JSON Pointers (RFC 6901) as local `$ref` values use them: `#/$defs/step`.
 */
import type { JsonPath } from "./json-path.js";

/** The JSON Pointer of `path`: `["$defs", "a/b"]` → `/$defs/a~1b`; the root is `""`. */
export function jsonPointerOf(path: JsonPath): string {
  return path
    .map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`)
    .join("");
}

/** What a `$ref` value points to: a pointer into this document, or why it cannot be followed. */
export type LocalRef = { ok: true; pointer: string } | { ok: false; problem: string };

/**
 * Reads a local `$ref` (`#` or `#/…`, percent-encoding allowed) as the
 * canonical JSON Pointer {@link jsonPointerOf} writes. External references
 * and plain-name fragments (anchors) are not local pointers.
 */
export function parseLocalRef(ref: string): LocalRef {
  if (!ref.startsWith("#")) {
    return {
      ok: false,
      problem:
        "points outside this document; inline the schema or move it into $defs and use #/$defs/<name>",
    };
  }
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return { ok: false, problem: "has a malformed percent-encoding; fix the pointer" };
  }
  if (pointer !== "" && !pointer.startsWith("/")) {
    return { ok: false, problem: "names an anchor, not a JSON Pointer; use #/$defs/<name>" };
  }
  if (/~(?![01])/.test(pointer)) {
    return {
      ok: false,
      problem: "has a ~ that is not ~0 or ~1, which a JSON Pointer forbids; fix the pointer",
    };
  }
  return { ok: true, pointer };
}

/**
 * The value a local `$ref` (`#/$defs/step`) points to in `document`, or
 * `undefined` when the ref is not local or nothing is there.
 */
export function resolveLocalRef(document: unknown, ref: string): unknown {
  const local = parseLocalRef(ref);
  if (!local.ok) return undefined;
  let at: unknown = document;
  for (const segment of local.pointer.split("/").slice(1)) {
    const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
