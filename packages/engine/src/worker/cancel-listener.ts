/**
 * How a cancel reaches the worker holding a run: the client publishes the
 * runId on the cancel channel; every worker listens on a subscriber
 * connection of its own and aborts the signal of each run it holds with that
 * id, which aborts the in-flight model request or tool. It remembers the
 * last {@link REMEMBERED_CANCELS} runIds it heard, so that a run held just
 * after its cancel was published is known to have one
 * (`HeldRun.cancelHeard`): a worker that took the run's job without reading
 * its log reads it then.
 */
import type { Logger } from "@errand/runtime";
import type { EngineKeys } from "../engine-keys.js";
import { type ConnectionInput, closeConnection, openConnection } from "../redis/connection.js";

/** How many of the runIds last published on the cancel channel a listener remembers. */
const REMEMBERED_CANCELS = 1_000;

/** A run held by this worker: its cancel signal, until released. */
interface HeldRun {
  /** Aborts when a cancel for the run is published. */
  readonly signal: AbortSignal;
  /** True when a cancel of the run was heard before it was held (among the last {@link REMEMBERED_CANCELS}). */
  readonly cancelHeard: boolean;
  /** Stops listening for this run. */
  release(): void;
}

/** The cancel listener of one worker. */
export interface CancelListener {
  /** Starts listening for cancels of `runId`. Hold before reading the log, so no cancel falls in between. */
  hold(runId: string): HeldRun;
  /** Unsubscribes and closes the subscriber connection. */
  close(): Promise<void>;
}

/** Subscribes to `keys.cancelChannel` and resolves once the subscription is active. */
export async function startCancelListener(
  connection: ConnectionInput,
  keys: EngineKeys,
  logger: Logger,
): Promise<CancelListener> {
  /** The controllers of each run held: its one, or a set when the run is held more than once. */
  const held = new Map<string, AbortController | Set<AbortController>>();
  /** The runIds heard last, oldest first (a Set keeps its insertion order). */
  const heard = new Set<string>();
  const subscriber = openConnection(connection, { logger, name: "worker cancel subscriber" });
  subscriber.on("message", (channel: string, runId: string) => {
    if (channel !== keys.cancelChannel) return;
    heard.delete(runId);
    heard.add(runId);
    if (heard.size > REMEMBERED_CANCELS) {
      for (const oldest of heard) {
        heard.delete(oldest);
        break;
      }
    }
    const controllers = held.get(runId);
    if (!controllers) return;
    logger.info({ runId }, "cancel received: aborting the run");
    if (controllers instanceof AbortController) controllers.abort();
    else for (const controller of controllers) controller.abort();
  });
  await subscriber.subscribe(keys.cancelChannel);
  return {
    hold(runId) {
      const controller = new AbortController();
      const others = held.get(runId);
      // A run is held once, but for a moment: a set only for a run held twice at once.
      if (others === undefined) held.set(runId, controller);
      else if (others instanceof AbortController) held.set(runId, new Set([others, controller]));
      else others.add(controller);
      return {
        signal: controller.signal,
        cancelHeard: heard.has(runId),
        release() {
          const controllers = held.get(runId);
          if (controllers === controller) held.delete(runId);
          else if (controllers instanceof Set) {
            controllers.delete(controller);
            if (controllers.size === 0) held.delete(runId);
          }
        },
      };
    },
    async close() {
      held.clear();
      heard.clear();
      await closeConnection(subscriber);
    },
  };
}
