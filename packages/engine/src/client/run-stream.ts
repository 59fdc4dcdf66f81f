/**
 * `stream`: a run's live deltas as an async iterable (docs/architecture/redis-layout.md#the-live-channel-streaming) — the
 * current model request's answer so far, then each delta as a streaming model
 * writes it, until the run settles. Resumable: pass the last entry's `offset`
 * as `from`. Reads block on a connection of their own, closed when the
 * iteration ends, however it ends.
 */
import { ErrandError, type LiveEntry } from "@errand/core";
import { isRunId, runNotFound } from "@errand/core/ops";
import { isLiveOffset } from "@errand/store/ops";
import { CLIENT_COMMAND_RETRIES, openConnection } from "../redis/connection.js";
import type { RunEventsContext } from "./run-events.js";

/** Options of `stream`. */
export interface RunStreamOptions {
  /** Resume after this offset (a `LiveEntry.offset`). Default: the current request's answer so far. */
  from?: string;
  /** Ends the iteration early. */
  signal?: AbortSignal;
  /** How long one blocking read waits before checking that the run still exists, in ms. */
  blockMs?: number;
}

/**
 * The live deltas of run `runId`. Throws `invalid_spec` for a malformed
 * runId or `from`, and `not_found` for an unknown run (both when iteration
 * starts).
 */
export async function* runStream(
  context: RunEventsContext,
  runId: string,
  options: RunStreamOptions = {},
): AsyncGenerator<LiveEntry, void, undefined> {
  if (!isRunId(runId)) {
    throw new ErrandError("invalid_spec", `not a run id: ${JSON.stringify(runId)}`);
  }
  if (options.from !== undefined && !isLiveOffset(options.from)) {
    throw new ErrandError("invalid_spec", `not a live offset: ${JSON.stringify(options.from)}`);
  }
  const { store } = context;
  if ((await store.readHead(runId)) === undefined) throw runNotFound(runId);
  const connection = openConnection(context.connection, {
    logger: context.logger,
    commandRetries: CLIENT_COMMAND_RETRIES,
    name: `run stream ${runId}`,
  });
  try {
    const follow = {
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.blockMs === undefined ? {} : { blockMs: options.blockMs }),
    };
    yield* store.followLive(runId, follow, connection);
  } finally {
    connection.disconnect();
  }
}
