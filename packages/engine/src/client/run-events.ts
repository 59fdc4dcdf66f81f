/**
 * `events`: a run's log as an async iterable — what is there now, or, with
 * `follow`, also every event appended later until the run settles. Following
 * uses blocking reads on a connection of its own (never polling), closed when
 * the iteration ends, however it ends.
 */
import { ErrandError, type RunEvent } from "@errand/core";
import { isRunId, runNotFound } from "@errand/core/ops";
import type { Logger } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import {
  CLIENT_COMMAND_RETRIES,
  type ConnectionInput,
  openConnection,
} from "../redis/connection.js";

/** Options of `events`. */
export interface RunEventsOptions {
  /** Keep yielding events as they are appended, until the terminal event. Default false. */
  follow?: boolean;
  /** Start after this seq. Default 0: the whole log. */
  afterSeq?: number;
  /** Ends a followed iteration early. */
  signal?: AbortSignal;
  /** How long one blocking read waits before checking that the run still exists, in ms. */
  blockMs?: number;
}

/** What `events` needs: the store, the connection to open followers like, and their logger. */
export interface RunEventsContext {
  store: EventStore;
  connection: ConnectionInput;
  logger: Logger;
}

/**
 * The events of run `runId` after `afterSeq`, in order. Throws
 * `invalid_spec` for a malformed runId and `not_found` for an unknown run
 * (both when iteration starts).
 */
export async function* runEvents(
  context: RunEventsContext,
  runId: string,
  options: RunEventsOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  if (!isRunId(runId)) {
    throw new ErrandError("invalid_spec", `not a run id: ${JSON.stringify(runId)}`);
  }
  const { store } = context;
  const afterSeq = options.afterSeq ?? 0;
  if ((await store.readHead(runId)) === undefined) {
    throw runNotFound(runId);
  }
  if (!options.follow) {
    yield* await store.readLog(runId, { afterSeq });
    return;
  }
  const connection = openConnection(context.connection, {
    logger: context.logger,
    commandRetries: CLIENT_COMMAND_RETRIES,
    name: `run follower ${runId}`,
  });
  try {
    const follow = {
      afterSeq,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.blockMs === undefined ? {} : { blockMs: options.blockMs }),
    };
    yield* store.followLog(runId, follow, connection);
  } finally {
    connection.disconnect();
  }
}
