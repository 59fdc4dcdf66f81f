/**
 * The page's sessions: opening the dashboard with `?token=<token>` sets a
 * cookie holding when it was issued and an HMAC of that time under a key
 * derived from the token. A cookie is honoured for
 * {@link SESSION_LIFETIME_SECONDS} after it was issued, then the page must be
 * opened with the token again; changing the token changes the key, which
 * ends every session at once. The cookie never holds the token, and one
 * stolen cookie is worth at most one lifetime.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** How long a session lasts after the page was opened with the token: 12 hours. */
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

/** How far in the future an issue time is still taken (the clock may step back a little). */
const CLOCK_STEP_MS = 60_000;

/** The sessions of one token. */
export interface Sessions {
  /** The cookie value of a session issued now. */
  issue(): string;
  /** Whether `cookie` is a session of this token, issued less than a lifetime ago. */
  isLive(cookie: string): boolean;
}

/** Sessions signed with a key derived from `token`, timed by `now`. */
export function createSessions(token: string, now: () => Date): Sessions {
  const key = createHash("sha256").update(`errand-dashboard-session:${token}`, "utf8").digest();
  const sign = (issuedAt: string): Buffer => createHmac("sha256", key).update(issuedAt).digest();
  return {
    issue() {
      const issuedAt = String(now().getTime());
      return `${issuedAt}.${sign(issuedAt).toString("base64url")}`;
    },
    isLive(cookie) {
      const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
      if (match === null) return false;
      const [, issuedAt = "", signature = ""] = match;
      if (!timingSafeEqual(Buffer.from(signature, "base64url"), sign(issuedAt))) return false;
      const age = now().getTime() - Number(issuedAt);
      return age > -CLOCK_STEP_MS && age < SESSION_LIFETIME_SECONDS * 1000;
    },
  };
}
