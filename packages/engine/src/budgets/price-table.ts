/**
 * What model responses cost (docs/architecture/budgets.md#budgets): a table of
 * US dollars per million tokens by model name, which a worker prices every
 * response with (its `model-responded.costUsd`). A model is found by the
 * longest table entry its name starts with, so `gpt-4o-mini-2024-07-18`
 * takes the price of `gpt-4o-mini`, not of `gpt-4o`. A model the table does
 * not know is not priced: its responses carry no cost, and count nothing
 * against a `costUsd` budget (its tokens and steps still count).
 */
import type { Usage } from "@errand/core";
import { roundUsd } from "@errand/core/ops";
import type { PriceResponse } from "@errand/runtime";

/** The price of one model, in US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillionUsd: number;
  outputPerMillionUsd: number;
  /** Input tokens read from the provider's prompt cache. Default: the input price. */
  cachedInputPerMillionUsd?: number;
}

/** Prices by model name (or name prefix). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The default table: common OpenAI models at their standard prices (not
 * Batch, Flex or Priority), as published compilations of OpenAI's pricing
 * page gave them from March to June 2026 (checked in December 2026). A
 * model whose name starts with another's needs its own entry when its price
 * differs (`o3-mini`, `o3-pro`, `gpt-5-pro`). Prices change: pass your own
 * (`createWorker({ prices })`, merged over this one) to be exact.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  "gpt-4o": { inputPerMillionUsd: 2.5, outputPerMillionUsd: 10, cachedInputPerMillionUsd: 1.25 },
  "gpt-4o-mini": {
    inputPerMillionUsd: 0.15,
    outputPerMillionUsd: 0.6,
    cachedInputPerMillionUsd: 0.075,
  },
  "gpt-4.1": { inputPerMillionUsd: 2, outputPerMillionUsd: 8, cachedInputPerMillionUsd: 0.5 },
  "gpt-4.1-mini": {
    inputPerMillionUsd: 0.4,
    outputPerMillionUsd: 1.6,
    cachedInputPerMillionUsd: 0.1,
  },
  "gpt-4.1-nano": {
    inputPerMillionUsd: 0.1,
    outputPerMillionUsd: 0.4,
    cachedInputPerMillionUsd: 0.025,
  },
  o3: { inputPerMillionUsd: 2, outputPerMillionUsd: 8, cachedInputPerMillionUsd: 0.5 },
  "o3-mini": { inputPerMillionUsd: 1.1, outputPerMillionUsd: 4.4, cachedInputPerMillionUsd: 0.55 },
  "o3-pro": { inputPerMillionUsd: 20, outputPerMillionUsd: 80 },
  "o4-mini": { inputPerMillionUsd: 1.1, outputPerMillionUsd: 4.4, cachedInputPerMillionUsd: 0.275 },
  "gpt-5": { inputPerMillionUsd: 1.25, outputPerMillionUsd: 10, cachedInputPerMillionUsd: 0.125 },
  "gpt-5-pro": { inputPerMillionUsd: 15, outputPerMillionUsd: 120 },
  "gpt-5-mini": {
    inputPerMillionUsd: 0.25,
    outputPerMillionUsd: 2,
    cachedInputPerMillionUsd: 0.025,
  },
  "gpt-5-nano": {
    inputPerMillionUsd: 0.05,
    outputPerMillionUsd: 0.4,
    cachedInputPerMillionUsd: 0.005,
  },
};

/** The price of `model` in `table`: its longest entry that the name starts with, if any. */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    if (model.startsWith(name) && (best === undefined || name.length > best.length)) best = name;
  }
  return best === undefined ? undefined : table[best];
}

/** What a response with `usage` costs at `price`, in US dollars to the nano-dollar. */
export function costOfUsage(price: ModelPrice, usage: Usage): number {
  const cached = usage.cachedInputTokens ?? 0;
  const cachedPrice = price.cachedInputPerMillionUsd ?? price.inputPerMillionUsd;
  const perMillion =
    (usage.inputTokens - cached) * price.inputPerMillionUsd +
    cached * cachedPrice +
    usage.outputTokens * price.outputPerMillionUsd;
  return roundUsd(perMillion / 1e6);
}

/** Prices the responses of `model` by `table`; `undefined` when the table does not know it. */
export function responsePricer(table: PriceTable, model: string): PriceResponse | undefined {
  const price = priceOf(table, model);
  return price === undefined ? undefined : (usage) => costOfUsage(price, usage);
}
