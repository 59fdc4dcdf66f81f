/**
 * Following a run's events in a test until one of them comes. Test-only: not exported.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";
import type { Errand } from "../client/client.js";

/** The run's events, followed until one matches `until` (default: its terminal event). */
export async function eventsUntil(
  errand: Errand,
  runId: string,
  until: (event: RunEvent) => boolean = (event) => isTerminalEventType(event.type),
): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of errand.events(runId, { follow: true })) {
    events.push(event);
    if (until(event)) return events;
  }
  throw new Error(`run ${runId} ended first`);
}
