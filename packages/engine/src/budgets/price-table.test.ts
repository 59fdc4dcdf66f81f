/** The price table: a model takes the price of its longest matching name; costs per million tokens. */
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
});
