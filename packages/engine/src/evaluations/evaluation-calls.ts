/**
 * Where the calls of a candidate run on the fleet were answered from
 * (docs/architecture/evaluations.md#candidates-on-the-fleet): the worker
 * writes each call's entry — where its answer came from, the unrecorded
 * calls it made — to a HASH of the evaluation and the candidate run, field
 * callId, before the call is answered, so the entries are all stored by the
 * time the run settles; the evaluation reads them into its case, then
 * deletes the HASH. Each entry is one worker's alone: a call runs on one
 * worker, and its entry is written whole each time it grows.
 */
import type { RunState } from "@errand/core";
import { z } from "zod";
import type { RedisConnection } from "../redis/connection.js";
import { UnrecordedCall } from "./evaluation-record.js";
import {
  type AnsweredFrom,
  type CallLedger,
  type MemoryLedger,
  newCallLedger,
} from "./recorded-tools.js";

const CallEntry = z.object({
  answeredFrom: z.enum(["log", "live", "refused"]).optional(),
  unrecorded: z.array(UnrecordedCall),
});
type CallEntry = z.infer<typeof CallEntry>;

/** A ledger that writes each call's entry to the HASH `key`, which expires after `ttlSeconds`. */
export function storedCallLedger(
  redis: RedisConnection,
  key: string,
  ttlSeconds: number,
): CallLedger {
  const entries = new Map<string, CallEntry>();
  const write = async (callId: string, change: (entry: CallEntry) => CallEntry) => {
    const entry = change(entries.get(callId) ?? { unrecorded: [] });
    entries.set(callId, entry);
    await redis.multi().hset(key, callId, JSON.stringify(entry)).expire(key, ttlSeconds).exec();
  };
  return {
    answered: (callId, from: AnsweredFrom) =>
      write(callId, (entry) => ({ ...entry, answeredFrom: from })),
    unrecorded: (callId, call) =>
      write(callId, (entry) => ({ ...entry, unrecorded: [...entry.unrecorded, call] })),
  };
}

/**
 * The ledger the worker wrote at `key` for the candidate run `candidate`
 * (its folded log), its unrecorded calls in the order the run made them;
 * the HASH is deleted once read.
 */
export async function takeCallLedger(
  redis: RedisConnection,
  key: string,
  candidate: RunState,
): Promise<MemoryLedger> {
  const fields = await redis.hgetall(key);
  await redis.del(key);
  const ledger = newCallLedger();
  const callIds = candidate.steps.flatMap((step) => step.calls.map((call) => call.callId));
  for (const callId of callIds) {
    const text = fields[callId];
    if (text === undefined) continue;
    const entry = CallEntry.parse(JSON.parse(text));
    for (const call of entry.unrecorded) ledger.unrecorded(callId, call);
    if (entry.answeredFrom !== undefined) ledger.answered(callId, entry.answeredFrom);
  }
  return ledger;
}
