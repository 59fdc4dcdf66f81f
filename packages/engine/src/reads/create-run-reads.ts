/**
 * `createRunReads`: the client's reads of run outcomes — `result`, `collect`
 * and `list` — over the results and indexes the collector keeps.
 * Waiting (`waitMs`) blocks on the collector's settled notifications; it
 * never polls.
 *
 * ```ts
 * const reads = createRunReads({ connection: process.env.REDIS_URL! });
 * const result = await reads.result(runId, { waitMs: 30_000 }); // RunResult, or undefined if still running
 * const batch = await reads.collect(runIds, { waitMs: 10_000 }); // { total, succeeded, …, results, nextAction? }
 * const recent = await reads.list({ status: "failed", limit: 20 }); // { items, count, hasMore, nextCursor? }
 * await reads.close();
 * ```
 */
import type { Page } from "@errand/core";
import { clientPatience, type Patiently } from "../redis/client-patience.js";
import { CLIENT_COMMAND_RETRIES, closeConnection, openSettledWaiter } from "../redis/connection.js";
import { type EngineOptions, openResources } from "../resources.js";
import { type CollectOptions, type CollectResult, collectRuns } from "./collect.js";
import { createReadsContext, type ReadsContext } from "./context.js";
import { type ListOptions, listRuns, type RunSummary } from "./list.js";
import { type ResultOptions, readResult } from "./result.js";
import { type LinkedRunResult, type RunLinks, runLinks } from "./view-url.js";

/** Options of {@link createRunReads}: the shared {@link EngineOptions}, and a dashboard to link to. */
export interface RunReadsOptions extends EngineOptions {
  /**
   * The URL the dashboard is served at: every run these reads return then
   * carries `viewUrl`, the link to its page there. Default none (no `viewUrl`).
   */
  dashboardUrl?: string;
}

/** The reads of run outcomes. */
export interface RunReads {
  /** The run's settled `RunResult`, waiting up to `waitMs`; undefined while it has not settled. */
  result(runId: string, options?: ResultOptions): Promise<LinkedRunResult | undefined>;
  /** A batch of the runs' outcomes, in the order given, a page at a time. */
  collect(runIds: readonly string[], options?: CollectOptions): Promise<CollectResult>;
  /** A page of run summaries, newest first. */
  list(options?: ListOptions): Promise<Page<RunSummary>>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** `options` with `waitMs` as the patience gives it for this try: `options` itself when that is its own (a first try). */
function waitingFor<T extends { waitMs?: number }>(options: T | undefined, waitMs?: number): T {
  if (options !== undefined && options.waitMs === waitMs) return options;
  return (waitMs === undefined ? { ...options } : { ...options, waitMs }) as T;
}

/**
 * The reads over `context`, whose connections belong to the caller; `links`
 * add each returned run's `viewUrl`. Each goes through `patiently` (see
 * `client-patience.ts`): a Redis that cannot answer now is waited out, a
 * wait keeping its own deadline.
 */
export function readsOn(
  context: ReadsContext,
  links: RunLinks,
  patiently: Patiently,
): Omit<RunReads, "close"> {
  return {
    async result(runId, resultOptions) {
      const result = await patiently(
        "read of a run's result",
        (waitMs) => readResult(context, runId, waitingFor(resultOptions, waitMs)),
        { waitMs: resultOptions?.waitMs },
      );
      return result === undefined ? undefined : links.run(result);
    },
    async collect(runIds, collectOptions) {
      const collected = await patiently(
        "collect of runs",
        (waitMs) => collectRuns(context, runIds, waitingFor(collectOptions, waitMs)),
        { waitMs: collectOptions?.waitMs },
      );
      return links.results(collected);
    },
    async list(listOptions) {
      const page = await patiently("list of runs", () => listRuns(context, listOptions));
      return { ...page, items: page.items.map(links.run) };
    },
  };
}

/**
 * Creates the reads; connections open now (commands) and on the first wait
 * (subscriber). Throws `invalid_spec` for a `dashboardUrl` that is not an
 * absolute http(s) URL, and `redis_unavailable` when `connection` names no Redis.
 */
export function createRunReads(options: RunReadsOptions): RunReads {
  const links = runLinks(options.dashboardUrl);
  const resources = openResources(options, {
    name: "reads commands",
    commandRetries: CLIENT_COMMAND_RETRIES,
  });
  const context = createReadsContext({
    ...resources,
    waiter: openSettledWaiter(options.connection, resources.keys, {
      logger: resources.logger,
      name: "reads settled subscriber",
    }),
    shards: resources.store.shards,
  });
  return {
    ...readsOn(context, links, clientPatience(resources.logger, options.connection)),
    async close() {
      await context.waiter.close();
      await closeConnection(resources.redis);
    },
  };
}
