/**
 * What the parent tools reach the engine through. A worker lends its tools
 * `ctx.services` (docs/architecture/tool-results.md#parents); `createWorker` always puts a
 * {@link ParentServices} there under {@link PARENT_SERVICES}, built from the
 * worker's own store, queues and reads, so `spawn_agents` and
 * `collect_agents` fire and collect with the worker's connections. Run
 * anywhere else, the tools fail the run with a clear `FatalToolError`.
 */
import { FatalToolError, type ToolContext } from "@errand/runtime";
import type { JobsOptions } from "bullmq";
import type { FireContext } from "../client/fire-context.js";
import { DEFAULT_MAX_INPUT_BYTES } from "../client/fire-spec.js";
import { createRunQueues } from "../queues/run-queues.js";
import type { ReadsContext } from "../reads/context.js";
import type { RunLinks } from "../reads/view-url.js";
import { type ConnectionInput, closeConnection, openConnection } from "../redis/connection.js";
import { retryWhileRedisIsTransient } from "../redis/transient-redis.js";
import {
  type CollectChildrenOutcome,
  type CollectChildrenRequest,
  collectChildren,
} from "./collect-children.js";
import { type ParentLimits, resolveParentLimits } from "./limits.js";
import {
  type SpawnItem,
  type SpawnResult,
  spawnChildrenWhenRedisIsBack,
} from "./spawn-children.js";
import type { SpawnCall } from "./spawn-keys.js";

/** The name under which a worker lends its tools the {@link ParentServices}. */
export const PARENT_SERVICES = "errandParent";

const BRAND: unique symbol = Symbol.for("@errand/engine/parent-services");

/** The engine as the parent tools see it. */
export interface ParentServices {
  readonly [BRAND]: true;
  /** The worker's limits, which a tool's own limits override. */
  readonly limits: ParentLimits;
  /**
   * Fires the children of a `spawn_agents` call (see
   * `spawnChildrenWhenRedisIsBack`), retrying transient Redis errors until
   * `signal` (the run's) aborts.
   */
  spawn(
    call: SpawnCall,
    items: readonly SpawnItem[],
    limits?: Partial<ParentLimits>,
    signal?: AbortSignal,
  ): Promise<SpawnResult>;
  /**
   * A page of a parent's children, or the ones to park for (see
   * `collectChildren`), retrying transient Redis errors until `signal` aborts.
   */
  collect(request: CollectChildrenRequest, signal?: AbortSignal): Promise<CollectChildrenOutcome>;
}

/**
 * The services over a fire context and a reads context that the caller
 * owns; `links` add each child's `viewUrl` to the answers.
 */
function createParentServices(
  fire: FireContext,
  reads: ReadsContext,
  limits: ParentLimits,
  links: RunLinks,
): ParentServices {
  return brandParentServices({
    limits,
    spawn: async (call, items, overrides, signal) =>
      links.results(
        await spawnChildrenWhenRedisIsBack(
          fire,
          call,
          items,
          resolveParentLimits(overrides, limits),
          signal,
        ),
      ),
    async collect(request, signal) {
      const outcome = await retryWhileRedisIsTransient(() => collectChildren(reads, request), {
        logger: reads.logger,
        write: "read of the run's children",
        fields: { runId: request.parentRunId },
        ...(signal ? { signal } : {}),
      });
      return "page" in outcome ? { page: links.results(outcome.page) } : outcome;
    },
  });
}

/**
 * Parent services made of `parts`, for a host other than a worker that
 * answers the parent tools itself (an evaluation answers them from a
 * recorded run's children: docs/architecture/evaluations.md#recorded-children).
 */
export function brandParentServices(parts: Omit<ParentServices, typeof BRAND>): ParentServices {
  return { [BRAND]: true, ...parts };
}

/** What a worker's parent services are built from: its own store and reads, plus a connection for the children's queues. */
export interface OpenParentServicesOptions {
  connection: ConnectionInput;
  /** The worker's reads (its store, connection, keys and waiter). */
  reads: ReadsContext;
  limits: ParentLimits;
  /** BullMQ options of the children's jobs. */
  jobOptions?: JobsOptions;
  /** What adds the children's `viewUrl` to the tools' answers. */
  links: RunLinks;
}

/** A worker's parent services, and how to close the queues they opened. */
export interface OpenParentServices {
  services: ParentServices;
  /**
   * What fires and cancels runs with the children's queues: a budget's
   * `cancel-tree`, and the runs of the worker's schedule ticker.
   */
  fireContext: FireContext;
  close(): Promise<void>;
}

/** Builds a worker's parent services; the children's queues get a connection of their own. */
export function openParentServices(options: OpenParentServicesOptions): OpenParentServices {
  const { reads, limits, links } = options;
  const queueConnection = openConnection(options.connection, {
    logger: reads.logger,
    name: "worker children queues",
  });
  const queues = createRunQueues(queueConnection, reads.keys, reads.logger, options.jobOptions);
  const fire: FireContext = { ...reads, queues, maxInputBytes: DEFAULT_MAX_INPUT_BYTES };
  return {
    services: createParentServices(fire, reads, limits, links),
    fireContext: fire,
    async close() {
      await queues.close();
      await closeConnection(queueConnection);
    },
  };
}

function isParentServices(value: unknown): value is ParentServices {
  return typeof value === "object" && value !== null && BRAND in value;
}

/**
 * The parent services lent to the tool `tool`. Throws a `FatalToolError`
 * (the run fails: retrying cannot help) when the run is not on an errand worker.
 */
export function parentServicesOf(ctx: ToolContext, tool: string): ParentServices {
  const lent = ctx.services[PARENT_SERVICES];
  if (isParentServices(lent)) return lent;
  throw new FatalToolError(
    `${tool} needs an errand worker: it reaches the engine through ctx.services.${PARENT_SERVICES}, which createWorker from @errand/engine lends its tools; this run's host lent none`,
  );
}
