/**
 * Caps on work the dashboard does at once — concurrent searches, open live
 * streams: a request beyond its cap is answered at once with 503 `busy`
 * (retryable) and a `Retry-After` header, instead of being queued.
 */
import type { Context } from "hono";
import { apiError } from "./api-error.js";

/** Gives back the place {@link Admission.tryEnter} took. Calling it again does nothing. */
type Release = () => void;

/** At most `max` at once. */
export interface Admission {
  /** Takes a place, or answers `undefined` when all `max` are taken. */
  tryEnter(): Release | undefined;
  /** How many places are taken. */
  readonly active: number;
}

/** An admission of at most `max` at once. */
export function createAdmission(max: number): Admission {
  let active = 0;
  return {
    tryEnter() {
      if (active >= max) return undefined;
      active += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        active -= 1;
      };
    },
    get active() {
      return active;
    },
  };
}

/** The answer beyond a cap: 503 `busy`, retryable, with `Retry-After: retryAfterSeconds`. */
export function refuseBusy(c: Context, message: string, retryAfterSeconds: number): Response {
  c.header("Retry-After", String(retryAfterSeconds));
  return apiError(c, 503, "busy", message, true);
}
