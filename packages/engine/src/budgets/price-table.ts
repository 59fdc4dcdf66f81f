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
  /** Input tokens written to the provider's prompt cache (Anthropic's cache writes). Default: the input price. */
  cacheWritePerMillionUsd?: number;
}

/** Prices by model name (or name prefix). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The default table, at standard prices (not Batch, Flex, Priority or
 * long-context tiers) for prompts up to 200k tokens. OpenAI models as
 * published compilations of OpenAI's pricing page gave them from March to
 * June 2026 (checked in December 2026); Anthropic's Claude models (5-minute
 * cache writes) and Google's Gemini models (cached input at a tenth of the
 * input price; context-cache storage is billed by the hour, outside any run)
 * as their pricing pages gave them in late 2025 (checked in December 2026).
 * The docs list their sources (docs/guide/models.md#prices). A model whose
 * name starts with another's needs its own entry when its price differs
 * (`o3-mini`, `claude-opus-4-5`, `gemini-2.5-flash-lite`). Prices change: pass
 * your own (`createWorker({ prices })`, merged over this one) to be exact.
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
  "claude-opus-4": claudePrice(15, 75),
  "claude-opus-4-5": claudePrice(5, 25),
  "claude-sonnet-4": claudePrice(3, 15),
  "claude-3-7-sonnet": claudePrice(3, 15),
  "claude-haiku-4-5": claudePrice(1, 5),
  "claude-3-5-haiku": claudePrice(0.8, 4),
  "claude-3-haiku": claudePrice(0.25, 1.25),
  "gemini-2.5-pro": geminiPrice(1.25, 10),
  "gemini-2.5-flash": geminiPrice(0.3, 2.5),
  "gemini-2.5-flash-lite": geminiPrice(0.1, 0.4),
  "gemini-3-pro": geminiPrice(2, 12),
  "gemini-3-flash": geminiPrice(0.5, 3),
};

/** A Claude model's price: cache reads at a tenth of the input price, 5-minute cache writes at 1.25 times it. */
function claudePrice(input: number, output: number): ModelPrice {
  return {
    inputPerMillionUsd: input,
    outputPerMillionUsd: output,
    cachedInputPerMillionUsd: roundUsd(input / 10),
    cacheWritePerMillionUsd: roundUsd(input * 1.25),
  };
}

/** A Gemini model's price: cached input at a tenth of the input price. */
function geminiPrice(input: number, output: number): ModelPrice {
  return {
    inputPerMillionUsd: input,
    outputPerMillionUsd: output,
    cachedInputPerMillionUsd: roundUsd(input / 10),
  };
}

/** The longest entry of `table` that `name` starts with, if any. */
function longestEntry(table: PriceTable, name: string): ModelPrice | undefined {
  let best: string | undefined;
  for (const entry of Object.keys(table)) {
    if (name.startsWith(entry) && (best === undefined || entry.length > best.length)) best = entry;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * The price of `model` in `table`: its longest entry that the name starts
 * with; else, for a name carrying its provider (`openai:gpt-4o-mini`,
 * `anthropic/claude-sonnet-4-5`), that of the name after it.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  const own = longestEntry(table, model);
  if (own !== undefined) return own;
  const bare = model.slice(Math.max(model.lastIndexOf(":"), model.lastIndexOf("/")) + 1);
  return bare === model || bare === "" ? undefined : longestEntry(table, bare);
}

/**
 * What a response with `usage` costs at `price`, in US dollars to the
 * nano-dollar: uncached input at the input price, cache reads and cache
 * writes (both part of `inputTokens`) at theirs, output — reasoning
 * included, as every provider bills it — at the output price.
 */
export function costOfUsage(price: ModelPrice, usage: Usage): number {
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const cachedPrice = price.cachedInputPerMillionUsd ?? price.inputPerMillionUsd;
  const writePrice = price.cacheWritePerMillionUsd ?? price.inputPerMillionUsd;
  const uncached = Math.max(0, usage.inputTokens - cached - written);
  const perMillion =
    uncached * price.inputPerMillionUsd +
    cached * cachedPrice +
    written * writePrice +
    usage.outputTokens * price.outputPerMillionUsd;
  return roundUsd(perMillion / 1e6);
}

/** Prices the responses of `model` by `table`; `undefined` when the table does not know it. */
export function responsePricer(table: PriceTable, model: string): PriceResponse | undefined {
  const price = priceOf(table, model);
  return price === undefined ? undefined : (usage) => costOfUsage(price, usage);
}
