import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isErrandError } from "./errors.js";
import { Page, page, resolveLimit } from "./page.js";

const Run = z.object({ runId: z.string() });

function errorCode(run: () => unknown): string {
  try {
    run();
    return "no error";
  } catch (error) {
    return isErrandError(error)
      ? `${error.code}: ${error.message}`
      : `not an ErrandError: ${String(error)}`;
  }
}

describe("page", () => {
  it("counts the items and always says hasMore", () => {
    const last: Page<{ runId: string }> = page([{ runId: "a" }, { runId: "b" }], {
      hasMore: false,
    });
    expect(last).toStrictEqual({
      items: [{ runId: "a" }, { runId: "b" }],
      count: 2,
      hasMore: false,
    });
    expect(page([], { hasMore: false })).toStrictEqual({ items: [], count: 0, hasMore: false });
    expect(page([1], { hasMore: true, nextCursor: "c1" })).toStrictEqual({
      items: [1],
      count: 1,
      hasMore: true,
      nextCursor: "c1",
    });
  });

  it("keeps a cursor on the last page, for polling new items", () => {
    expect(page([], { hasMore: false, nextCursor: "c9" }).nextCursor).toBe("c9");
  });

  it("refuses hasMore without a cursor", () => {
    expect(errorCode(() => page([1], { hasMore: true }))).toMatch(
      /^internal: a page with hasMore must carry a nextCursor/,
    );
  });
});

describe("Page schema", () => {
  const RunPage = Page(Run);

  it("accepts what page() builds", () => {
    const built = page([{ runId: "a" }], { hasMore: true, nextCursor: "c" });
    expect(RunPage.parse(built)).toStrictEqual(built);
  });

  it("refuses a wrong count, hasMore without a cursor, and items of the wrong shape", () => {
    expect(RunPage.safeParse({ items: [{ runId: "a" }], count: 2, hasMore: false }).success).toBe(
      false,
    );
    expect(RunPage.safeParse({ items: [], count: 0, hasMore: true }).success).toBe(false);
    expect(RunPage.safeParse({ items: [{ id: 1 }], count: 1, hasMore: false }).success).toBe(false);
    expect(RunPage.safeParse({ items: [], count: 0 }).success).toBe(false);
  });
});

describe("resolveLimit", () => {
  const bounds = { default: 20, max: 100 };

  it("gives the default when no limit is given, and lowers a limit above the maximum", () => {
    expect(resolveLimit(undefined, bounds)).toBe(20);
    expect(resolveLimit(null, bounds)).toBe(20);
    expect(resolveLimit(1, bounds)).toBe(1);
    expect(resolveLimit(100, bounds)).toBe(100);
    expect(resolveLimit(1_000_000, bounds)).toBe(100);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10", true, {}])(
    "refuses %s with invalid_spec",
    (limit) => {
      expect(errorCode(() => resolveLimit(limit, bounds))).toMatch(
        /^invalid_spec: invalid limit .+: pass a whole number from 1 to 100, or omit it for 20$/,
      );
    },
  );

  it("refuses bounds that make no sense", () => {
    expect(errorCode(() => resolveLimit(5, { default: 0, max: 10 }))).toMatch(
      /^internal: invalid limit bounds/,
    );
    expect(errorCode(() => resolveLimit(5, { default: 20, max: 10 }))).toMatch(
      /^internal: invalid limit bounds/,
    );
  });
});
