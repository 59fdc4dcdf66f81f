/**
 * Lists (docs/architecture/tool-results.md#the-result-vocabulary): `{ items, count, hasMore, nextCursor? }`. `hasMore` is
 * always present; a page that has more carries the `nextCursor` to fetch the
 * next one (see `encodeCursor`). A `limit` has a default and a hard maximum.
 */
import { z } from "zod";
import { ErrandError } from "./errors.js";

/** Everything a page says besides its items. */
export const PageInfo = z.object({
  /** How many items this page holds. */
  count: z.number().int().nonnegative(),
  /** Whether more items follow this page. */
  hasMore: z.boolean(),
  /** The cursor of the next page; always present when `hasMore` is true. */
  nextCursor: z.string().min(1).optional(),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** The schema of one page of items matching `item`, with its count and `hasMore` checked. */
export function Page<Item extends z.ZodType>(item: Item) {
  return PageInfo.extend({ items: z.array(item) })
    .refine((page) => page.count === page.items.length, {
      message: "count must equal the number of items",
      path: ["count"],
    })
    .refine((page) => !page.hasMore || page.nextCursor !== undefined, {
      message: "a page with hasMore must carry a nextCursor",
      path: ["nextCursor"],
    });
}
export type Page<Item> = z.infer<ReturnType<typeof Page<z.ZodType<Item>>>>;

/** Options of {@link page}. */
export interface PageOptions {
  /** Whether more items follow. */
  hasMore: boolean;
  /** The cursor of the next page: required when `hasMore`, allowed otherwise (to poll for new items). */
  nextCursor?: string;
}

/** A page of `items`, counted. Throws an `internal` ErrandError for `hasMore` without a cursor. */
export function page<Item>(
  items: readonly Item[],
  { hasMore, nextCursor }: PageOptions,
): Page<Item> {
  if (hasMore && (nextCursor === undefined || nextCursor === "")) {
    throw new ErrandError(
      "internal",
      "a page with hasMore must carry a nextCursor to fetch the rest",
    );
  }
  return {
    items: [...items],
    count: items.length,
    hasMore,
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}

/** The default and the hard maximum of a list's `limit`. */
export interface LimitBounds {
  /** The limit when none is given. */
  default: number;
  /** The largest limit served; a larger one is lowered to it. */
  max: number;
}

/**
 * The number of items to serve for a requested `limit`: the default when it
 * is absent (`undefined` or `null`), lowered to the maximum when above it.
 * Anything but a whole number from 1 up is refused with an `invalid_spec` ErrandError.
 */
export function resolveLimit(limit: unknown, bounds: LimitBounds): number {
  if (
    !(Number.isSafeInteger(bounds.default) && bounds.default >= 1 && bounds.max >= bounds.default)
  ) {
    throw new ErrandError(
      "internal",
      `invalid limit bounds ${JSON.stringify(bounds)}: need 1 ≤ default ≤ max`,
    );
  }
  if (limit === undefined || limit === null) return bounds.default;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) {
    const shown =
      typeof limit === "number" ? String(limit) : (JSON.stringify(limit) ?? typeof limit);
    throw new ErrandError(
      "invalid_spec",
      `invalid limit ${shown}: pass a whole number from 1 to ${bounds.max}, or omit it for ${bounds.default}`,
    );
  }
  return Math.min(limit, bounds.max);
}
