/**
 * Batches (docs/architecture/tool-results.md#the-result-vocabulary): `{ total, succeeded, failed, results }`, one result per
 * item in the order given, each with its own `ok`. Never one boolean for the
 * whole batch, never the successes thrown away because one item failed.
 */
import { z } from "zod";

/** Why one item of a batch failed. */
export const BatchError = z.object({
  code: z.string().min(1),
  message: z.string(),
});
export type BatchError = z.infer<typeof BatchError>;

/** The outcome fields every batch result carries next to its own fields. */
export const BatchOutcome = z.object({
  ok: z.boolean(),
  /** Present exactly when `ok` is false. */
  error: BatchError.optional(),
  /** For a failed item: whether sending it again unchanged may succeed. */
  retryable: z.boolean().optional(),
});
export type BatchOutcome = z.infer<typeof BatchOutcome>;

/** The schema of one batch result: the item's fields plus its outcome; `error` iff not `ok`. */
export function BatchResult<Item extends z.ZodObject>(item: Item) {
  return item
    .extend(BatchOutcome.shape)
    .refine((result) => result.ok === (result.error === undefined), {
      message: "a failed result carries an error, and a successful one does not",
      path: ["error"],
    });
}
export type BatchResult<Fields extends object> = Fields & BatchOutcome;

/** The counts of a batch. */
export const BatchCounts = z.object({
  total: z.number().int().nonnegative(),
  succeeded: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
});
export type BatchCounts = z.infer<typeof BatchCounts>;

/** The schema of a batch of results of `item`, with its counts checked against its results. */
export function Batch<Item extends z.ZodObject>(item: Item) {
  return BatchCounts.extend({ results: z.array(BatchResult(item)) }).refine(
    (value) => {
      const counted = countResults(value.results);
      return (
        value.total === counted.total &&
        value.succeeded === counted.succeeded &&
        value.failed === counted.failed
      );
    },
    { message: "total, succeeded and failed must count the results" },
  );
}
export type Batch<Fields extends object> = BatchCounts & { results: BatchResult<Fields>[] };

/** A batch of `results`, counted. */
export function batch<Result extends BatchOutcome>(
  results: readonly Result[],
): BatchCounts & { results: Result[] } {
  return { ...countResults(results), results: [...results] };
}

function countResults(results: readonly { ok?: unknown }[]): BatchCounts {
  const succeeded = results.filter((result) => result.ok === true).length;
  return { total: results.length, succeeded, failed: results.length - succeeded };
}
