/**
 * Every value the dashboard sends — inputs, outputs, tool arguments and
 * results, metadata, blobs — goes through {@link showValue}:
 *
 * - its secrets are replaced by `[redacted]` first, before anything is cut
 *   (core's `redactSecrets`, the one pass the logs and the CLI use too:
 *   secret keys at any depth, pairs such as `{ name: "apiKey", value }`,
 *   JSON held as text, secrets in free text);
 * - a string longer than `maxStringChars` keeps its beginning and says how
 *   much was cut; an array longer than `maxItems` keeps its first items and
 *   ends with a note of how many were left out;
 * - an object or array nested `maxDepth` levels below the value is replaced
 *   by a note: a model may choose tool arguments thousands of levels deep,
 *   and the page shows them cut rather than failing to show the run.
 *
 * `truncated` says whether anything was cut, so the page can offer the
 * whole value (the event endpoint by seq), which is itself depth-limited.
 * Unlike the logs, inputs and outputs are shown: seeing them is what the
 * dashboard is for.
 */
import { redactSecrets } from "@errand/core";

/** Where values are cut. */
export interface ShowLimits {
  /** Characters kept of a long string. */
  maxStringChars: number;
  /** Items kept of a long array. */
  maxItems: number;
  /** Levels of objects and arrays kept below the value itself. */
  maxDepth: number;
}

/** The limits of the timeline's previews (and of a run's input in its detail). */
export const PREVIEW_LIMITS: ShowLimits = { maxStringChars: 2_000, maxItems: 50, maxDepth: 24 };

/** The limits of a value asked for whole: nothing is shortened, nesting is cut at 64 levels. */
export const WHOLE_LIMITS: ShowLimits = {
  maxStringChars: Number.POSITIVE_INFINITY,
  maxItems: Number.POSITIVE_INFINITY,
  maxDepth: 64,
};

/** A value as it is sent, and whether anything was cut. */
export interface ShownValue {
  value: unknown;
  truncated: boolean;
}

/** `value` redacted and cut at `limits` (a copy; `value` is untouched). */
export function showValue(value: unknown, limits: ShowLimits = PREVIEW_LIMITS): ShownValue {
  let truncated = false;
  const show = (inner: unknown, depth: number): unknown => {
    if (typeof inner === "string") {
      if (inner.length <= limits.maxStringChars) return inner;
      truncated = true;
      const cut = inner.length - limits.maxStringChars;
      return `${inner.slice(0, limits.maxStringChars)}… [${cut} more characters]`;
    }
    if (typeof inner !== "object" || inner === null) return inner;
    const entries = Array.isArray(inner) ? inner : Object.keys(inner);
    if (depth >= limits.maxDepth && entries.length > 0) {
      truncated = true;
      return `… [nested deeper than ${limits.maxDepth} levels]`;
    }
    if (Array.isArray(inner)) {
      const kept = inner.slice(0, limits.maxItems).map((item) => show(item, depth + 1));
      if (inner.length <= limits.maxItems) return kept;
      truncated = true;
      return [...kept, `… [${inner.length - limits.maxItems} more items]`];
    }
    return Object.fromEntries(
      Object.entries(inner).map(([key, field]) => [key, show(field, depth + 1)]),
    );
  };
  return { value: show(redactSecrets(value), 0), truncated };
}

/** `value` whole but for its secrets, replaced by `[redacted]`, and nesting past {@link WHOLE_LIMITS}. */
export function showWhole(value: unknown): unknown {
  return showValue(value, WHOLE_LIMITS).value;
}
