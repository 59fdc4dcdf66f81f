/**
 * Large values are sent to the page shortened, with a flag saying so; the
 * page offers the whole value on request (the event endpoint by seq). A
 * string longer than {@link PREVIEW_LIMITS}.`maxStringChars` keeps its
 * beginning and says how much was cut; an array longer than `maxItems` keeps
 * its first items and ends with a note of how many were left out.
 */

/** Where values are cut in a preview. */
export interface PreviewLimits {
  /** Characters kept of a long string. */
  maxStringChars: number;
  /** Items kept of a long array. */
  maxItems: number;
}

/** The limits of the timeline's previews. */
export const PREVIEW_LIMITS: PreviewLimits = { maxStringChars: 2_000, maxItems: 50 };

/** A value shortened for display, and whether anything was cut. */
export interface Preview {
  value: unknown;
  truncated: boolean;
}

/** `value` with long strings and arrays cut at `limits` (a copy; `value` is untouched). */
export function previewValue(value: unknown, limits: PreviewLimits = PREVIEW_LIMITS): Preview {
  let truncated = false;
  const shorten = (inner: unknown): unknown => {
    if (typeof inner === "string") {
      if (inner.length <= limits.maxStringChars) return inner;
      truncated = true;
      const cut = inner.length - limits.maxStringChars;
      return `${inner.slice(0, limits.maxStringChars)}… [${cut} more characters]`;
    }
    if (Array.isArray(inner)) {
      const kept = inner.slice(0, limits.maxItems).map(shorten);
      if (inner.length <= limits.maxItems) return kept;
      truncated = true;
      return [...kept, `… [${inner.length - limits.maxItems} more items]`];
    }
    if (typeof inner !== "object" || inner === null) return inner;
    return Object.fromEntries(Object.entries(inner).map(([key, field]) => [key, shorten(field)]));
  };
  return { value: shorten(value), truncated };
}
