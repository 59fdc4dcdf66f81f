/**
 * `grantedErrand`: the calls of an `Errand` that an access grant allows, with
 * the same names and shapes, each checked (docs/operations/keys.md): a
 * missing scope or an agent outside the grant's list is `forbidden`; a
 * grant with a tenant fires only under its tenant and meets another
 * tenant's runs as unknown ones (`run-visibility.ts`). Every write made
 * through it (fire, cancel, answer) is logged with the key's id, never the key.
 */
import { ErrandError } from "@errand/core";
import { parseWaitpointToken } from "@errand/core/ops";
import type { Logger } from "@errand/runtime";
import type { Errand } from "../client/client.js";
import type { FireManyItem, FireManyResult } from "../client/fire-many.js";
import type { FireSpec } from "../client/fire-spec.js";
import { createLogger } from "../logger.js";
import type { CollectResult } from "../reads/collect.js";
import type { AccessGrant } from "./access-grant.js";
import { agentRefusal, requireScope, tenantRefusal } from "./grant-checks.js";
import { hiddenRuns, requireVisible } from "./run-visibility.js";

/** The calls of an {@link Errand} a grant allows: the same names and shapes, checked. */
export interface GrantedErrand
  extends Pick<
    Errand,
    | "fire"
    | "fireMany"
    | "result"
    | "collect"
    | "list"
    | "cancel"
    | "events"
    | "stream"
    | "waitpoints"
  > {
  /** The grant every call is checked against. */
  readonly grant: AccessGrant;
}

/** Options of {@link grantedErrand}. */
export interface GrantedErrandOptions {
  /** Where the writes made through the grant are logged. Default {@link createLogger}(). */
  logger?: Logger;
}

/** The checked spec of a grant's fire, or the error refusing it. */
type GrantedSpec = { ok: true; spec: FireSpec } | { ok: false; error: ErrandError };

/**
 * The id `collect` is asked about instead of a run the grant may not see:
 * an id of the same shard and time whose random part is all zeros (or ones),
 * which no fired run has but by a 2⁻⁸⁰ chance — so the answer about it is
 * the answer about an unknown run, word for word once its id is put back.
 */
function standIn(runId: string): string {
  const zeros = `${runId.slice(0, -16)}${"0".repeat(16)}`;
  return zeros === runId ? `${runId.slice(0, -16)}${"1".repeat(16)}` : zeros;
}

/**
 * The calls of `errand` that `grant` allows (see the module documentation).
 *
 * ```ts
 * const grant = await accessKeys.verify(request.headers.authorization.slice(7));
 * if (grant === undefined) return unauthorized();
 * const granted = grantedErrand(errand, grant);
 * await granted.fire({ agent: "researcher", input }); // under grant.tenant, if it has one
 * ```
 */
export function grantedErrand(
  errand: Errand,
  grant: AccessGrant,
  options: GrantedErrandOptions = {},
): GrantedErrand {
  const logger = (options.logger ?? createLogger()).child({ keyId: grant.keyId });
  const { store } = errand;

  /** `spec` as the grant fires it: its agent allowed, its parent visible, its tenant the grant's. */
  const checkSpec = async (spec: FireSpec): Promise<GrantedSpec> => {
    if (typeof spec !== "object" || spec === null) return { ok: true, spec };
    const agentError = agentRefusal(grant, spec.agent);
    if (agentError) return { ok: false, error: agentError };
    if (grant.tenant === undefined) return { ok: true, spec };
    if (spec.tenant !== undefined && spec.tenant !== grant.tenant) {
      return { ok: false, error: tenantRefusal(grant, "tenant", spec.tenant) };
    }
    if (spec.concurrencyKey !== undefined && spec.concurrencyKey !== grant.tenant) {
      return { ok: false, error: tenantRefusal(grant, "concurrencyKey", spec.concurrencyKey) };
    }
    if (spec.parentRunId !== undefined) {
      try {
        await requireVisible(store, grant, spec.parentRunId, "parent run");
      } catch (error) {
        if (error instanceof ErrandError) return { ok: false, error };
        throw error;
      }
    }
    return { ok: true, spec: { ...spec, tenant: grant.tenant, concurrencyKey: grant.tenant } };
  };

  /** Throws unless the grant may read run `runId`: `forbidden` without `read`, `not_found` for another tenant's. */
  const readable = async (runId: string) => {
    requireScope(grant, "read");
    await requireVisible(store, grant, runId);
  };

  const logFired = (agent: unknown, runId: string, deduplicated: boolean | undefined) =>
    logger.info(
      { agent, runId, tenant: grant.tenant, ...(deduplicated ? { deduplicated } : {}) },
      "run fired with an access key",
    );

  return {
    grant,

    async fire(spec) {
      requireScope(grant, "fire");
      const checked = await checkSpec(spec);
      if (!checked.ok) throw checked.error;
      const fired = await errand.fire(checked.spec);
      logFired(spec.agent, fired.runId, fired.deduplicated);
      return fired;
    },

    async fireMany(specs) {
      requireScope(grant, "fire");
      if (!Array.isArray(specs)) return errand.fireMany(specs);
      const checked = await Promise.all(specs.map(checkSpec));
      const allowed = checked.flatMap((item) => (item.ok ? [item.spec] : []));
      const fired = allowed.length === 0 ? undefined : await errand.fireMany(allowed);
      let next = 0;
      const results = checked.map((item, index): FireManyItem => {
        if (!item.ok) {
          const { code, message, retryable } = item.error;
          return { ok: false, error: { code, message }, retryable };
        }
        const result = fired!.results[next++]!;
        if (result.ok && result.runId !== undefined) {
          logFired(specs[index]?.agent, result.runId, result.deduplicated);
        }
        return result;
      });
      const succeeded = results.filter((result) => result.ok).length;
      const answer: FireManyResult = {
        total: results.length,
        succeeded,
        failed: results.length - succeeded,
        results,
      };
      return answer;
    },

    async result(runId, resultOptions) {
      await readable(runId);
      return errand.result(runId, resultOptions);
    },

    async collect(runIds, collectOptions) {
      requireScope(grant, "read");
      if (!Array.isArray(runIds)) return errand.collect(runIds, collectOptions);
      const hidden = await hiddenRuns(store, grant, runIds);
      if (hidden.size === 0) return errand.collect(runIds, collectOptions);
      const originals = new Map([...hidden].map((runId) => [standIn(runId), runId]));
      const asked = runIds.map((runId) => (hidden.has(runId) ? standIn(runId) : runId));
      return putBack(await errand.collect(asked, collectOptions), originals);
    },

    async list(listOptions = {}) {
      requireScope(grant, "read");
      if (grant.tenant === undefined) return errand.list(listOptions);
      if (listOptions.tenant !== undefined && listOptions.tenant !== grant.tenant) {
        return { items: [], count: 0, hasMore: false };
      }
      return errand.list({ ...listOptions, tenant: grant.tenant });
    },

    async cancel(runId, cancelOptions) {
      requireScope(grant, "cancel");
      await requireVisible(store, grant, runId);
      const cancelled = await errand.cancel(runId, cancelOptions);
      logger.info(
        { runId, cascade: cancelOptions?.cascade === true, requested: cancelled.requested },
        "run cancelled with an access key",
      );
      return cancelled;
    },

    events(runId, eventsOptions) {
      return visibleIteration(
        () => readable(runId),
        () => errand.events(runId, eventsOptions),
      );
    },

    stream(runId, streamOptions) {
      return visibleIteration(
        () => readable(runId),
        () => errand.stream(runId, streamOptions),
      );
    },

    waitpoints: {
      async list(waitingOptions = {}) {
        requireScope(grant, "read");
        if (grant.tenant === undefined) return errand.waitpoints.list(waitingOptions);
        if (waitingOptions.runId !== undefined) {
          await requireVisible(store, grant, waitingOptions.runId);
          return errand.waitpoints.list(waitingOptions);
        }
        const waiting = await errand.waitpoints.list(waitingOptions);
        const hidden = await hiddenRuns(
          store,
          grant,
          waiting.items.map((item) => item.runId),
        );
        const items = waiting.items.filter((item) => !hidden.has(item.runId));
        return { ...waiting, items, count: items.length };
      },

      async complete(token, answer, completeOptions) {
        requireScope(grant, "answer");
        if (grant.tenant !== undefined && typeof token === "string") {
          let runId: string | undefined;
          try {
            runId = parseWaitpointToken(token).runId;
          } catch {
            // Not a token: the call below refuses it in its own words.
          }
          if (runId !== undefined) await requireVisible(store, grant, runId);
        }
        const completed = await errand.waitpoints.complete(token, answer, completeOptions);
        logger.info({ token, runId: completed.runId }, "waitpoint answered with an access key");
        return completed;
      },
    },
  };
}

/** `page` with each stand-in's run id (and the words naming it) put back to the id asked about. */
function putBack(page: CollectResult, originals: ReadonlyMap<string, string>): CollectResult {
  const original = (text: string): string => {
    let restored = text;
    for (const [standIn, runId] of originals) restored = restored.replaceAll(standIn, runId);
    return restored;
  };
  const results = page.results.map((item) => {
    const runId = originals.get(item.runId);
    if (runId === undefined) return item;
    return {
      ...item,
      runId,
      ...(item.error === undefined
        ? {}
        : { error: { ...item.error, message: original(item.error.message) } }),
      ...(item.viewUrl === undefined ? {} : { viewUrl: original(item.viewUrl) }),
    };
  });
  const nextAction =
    page.nextAction === undefined
      ? undefined
      : {
          ...page.nextAction,
          args: {
            ...page.nextAction.args,
            ...(Array.isArray(page.nextAction.args.runIds)
              ? {
                  runIds: page.nextAction.args.runIds.map((runId: unknown) =>
                    typeof runId === "string" ? (originals.get(runId) ?? runId) : runId,
                  ),
                }
              : {}),
          },
        };
  return { ...page, results, ...(nextAction === undefined ? {} : { nextAction }) };
}

/**
 * The items of `open()`, once `visible()` resolved; its rejection
 * (`forbidden`, `not_found`) ends the iteration first: as `events` and
 * `stream` throw, when iteration starts.
 */
async function* visibleIteration<T>(
  visible: () => Promise<void>,
  open: () => AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  await visible();
  yield* open();
}
