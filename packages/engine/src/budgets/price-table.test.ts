/** The price table: a model takes the price of its longest matching name; costs per million tokens. */
import { roundUsd } from "@errand/core/ops";
import { describe, expect, it } from "vitest";
import { costOfUsage, DEFAULT_PRICE_TABLE, priceOf, responsePricer } from "./price-table.js";

describe("the price table", () => {
  it("prices a dated model by its longest matching entry", () => {
    expect(priceOf(DEFAULT_PRICE_TABLE, "gpt-4o-mini-2024-07-18")).toBe(
      DEFAULT_PRICE_TABLE["gpt-4o-mini"],
    );
    expect(priceOf(DEFAULT_PRICE_TABLE, "gpt-4o-2024-08-06")).toBe(DEFAULT_PRICE_TABLE["gpt-4o"]);
    // A model whose name starts with another's: its own price, not the shorter name's.
    expect(priceOf(DEFAULT_PRICE_TABLE, "o3-mini-2025-01-31")).toMatchObject({
      inputPerMillionUsd: 1.1,
      outputPerMillionUsd: 4.4,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "gpt-5-pro")).toMatchObject({ outputPerMillionUsd: 120 });
    expect(priceOf(DEFAULT_PRICE_TABLE, "o3-2025-04-16")).toBe(DEFAULT_PRICE_TABLE.o3);
    expect(priceOf(DEFAULT_PRICE_TABLE, "llama-3")).toBeUndefined();
    expect(responsePricer(DEFAULT_PRICE_TABLE, "llama-3")).toBeUndefined();
  });

  it("costs input, cached input and output tokens at their prices per million", () => {
    const price = {
      inputPerMillionUsd: 0.15,
      outputPerMillionUsd: 0.6,
      cachedInputPerMillionUsd: 0.075,
    };
    expect(costOfUsage(price, { inputTokens: 1_200, outputTokens: 80 })).toBe(0.000228);
    expect(
      costOfUsage(price, { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 0 }),
    ).toBe(0.6 * 0.15 + 0.4 * 0.075);
    const gpt41 = responsePricer(
      { "gpt-4.1": { inputPerMillionUsd: 2, outputPerMillionUsd: 8 } },
      "gpt-4.1",
    );
    expect(gpt41?.({ inputTokens: 500_000, outputTokens: 250_000 })).toBe(3);
  });

  it("prices Claude and Gemini models, dated or not, and a name carrying its provider", () => {
    expect(priceOf(DEFAULT_PRICE_TABLE, "claude-sonnet-4-5-20250929")).toEqual({
      inputPerMillionUsd: 3,
      outputPerMillionUsd: 15,
      cachedInputPerMillionUsd: 0.3,
      cacheWritePerMillionUsd: 3.75,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "claude-opus-4-1-20250805")).toMatchObject({
      inputPerMillionUsd: 15,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "claude-opus-4-5")).toMatchObject({
      inputPerMillionUsd: 5,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "gemini-2.5-flash-lite")).toMatchObject({
      inputPerMillionUsd: 0.1,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "gemini-2.5-flash")).toMatchObject({
      inputPerMillionUsd: 0.3,
      cachedInputPerMillionUsd: 0.03,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "openai:gpt-4o-mini")).toBe(
      DEFAULT_PRICE_TABLE["gpt-4o-mini"],
    );
    expect(priceOf(DEFAULT_PRICE_TABLE, "anthropic/claude-haiku-4-5")).toMatchObject({
      inputPerMillionUsd: 1,
    });
    expect(priceOf(DEFAULT_PRICE_TABLE, "openai:llama-3")).toBeUndefined();
  });

  it("costs cache writes at their price, and at the input price when the table has none", () => {
    const usage = {
      inputTokens: 1_000_000,
      cachedInputTokens: 200_000,
      cacheWriteTokens: 300_000,
      outputTokens: 0,
    };
    const claude = {
      inputPerMillionUsd: 3,
      outputPerMillionUsd: 15,
      cachedInputPerMillionUsd: 0.3,
      cacheWritePerMillionUsd: 3.75,
    };
    expect(costOfUsage(claude, usage)).toBe(roundUsd(0.5 * 3 + 0.2 * 0.3 + 0.3 * 3.75));
    const plain = { inputPerMillionUsd: 2, outputPerMillionUsd: 8 };
    expect(costOfUsage(plain, usage)).toBe(2);
  });
});
