/**
 * The page's one overview stream, shared by the views: each `overview`
 * message goes to whoever listens now; the header's indicator shows whether
 * the stream is open.
 */
import { type OverviewMessage, openStream } from "./api.js";

type Listener = (message: OverviewMessage) => void;

const listeners = new Set<Listener>();
let last: OverviewMessage | undefined;

/** Opens the stream; `onState` hears whether it is connected. */
export function startOverviewStream(onState: (open: boolean) => void): void {
  openStream(
    "/api/live",
    {
      overview: (data) => {
        last = data as OverviewMessage;
        for (const listener of listeners) listener(last);
      },
    },
    onState,
  );
}

/** Calls `listener` with each message (and the last one at once); returns how to stop. */
export function listenToOverview(listener: Listener): () => void {
  listeners.add(listener);
  if (last !== undefined) listener(last);
  return () => listeners.delete(listener);
}
