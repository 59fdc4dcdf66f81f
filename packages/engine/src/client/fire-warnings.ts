/**
 * What a fire tells its caller besides the runId: a run accepted but not
 * about to start. Today one warning, `no_live_worker`: the agent (or its
 * pinned version) is registered, but no worker of it is live, so the run
 * waits in its queue until one starts. Read from the registrations preflight
 * has already read to choose the run's queue: a warning costs no Redis
 * command.
 */
import { type AgentRegistration, isLive } from "../queues/registry.js";

/**
 * Something the caller should know about a run that was fired all the same.
 * `no_live_worker`: no worker that runs the agent (of the pinned version,
 * when one is pinned) is live — none beat within three heartbeats, or the
 * last one closed — so the run waits in its queue until one starts; `message`
 * says since when.
 */
export interface FireWarning {
  code: "no_live_worker";
  message: string;
}

/** `00:04 UTC` of `at`, with its date (`2026-12-05 23:58 UTC`) when that is not the day of `now`. */
function utcTime(at: Date, now: Date): string {
  const iso = at.toISOString();
  const sameDay = iso.slice(0, 10) === now.toISOString().slice(0, 10);
  return `${sameDay ? "" : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}

/** When a worker of `registration` was last live: when the last one closed, else its last beat. */
function lastLiveAt(registration: AgentRegistration): number {
  return Date.parse(registration.stoppedAt ?? registration.lastSeenAt);
}

/**
 * The `no_live_worker` warning of a run of an agent whose `registrations`
 * (of `version`, when pinned) have no live worker at `now`; `undefined` when
 * one is live, or when there is no registration (preflight refuses that run).
 */
export function noLiveWorkerWarning(
  registrations: readonly AgentRegistration[],
  now: Date,
  version?: string,
): FireWarning | undefined {
  const candidates =
    version === undefined
      ? registrations
      : registrations.filter((registration) => registration.version === version);
  const [first] = candidates;
  if (first === undefined || candidates.some((registration) => isLive(registration, now))) {
    return undefined;
  }
  const since = new Date(Math.max(...candidates.map(lastLiveAt)));
  const agent = version === undefined ? first.name : `${first.name}@${version}`;
  return {
    code: "no_live_worker",
    message: `no live worker for ${agent} since ${utcTime(since, now)}: the run waits until one starts`,
  };
}
