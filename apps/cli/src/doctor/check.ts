/**
 * The result of one doctor check: what was looked at, whether it is fine,
 * and, for a problem, the fix to apply.
 */

/** One check's outcome, as `errand doctor --json` prints it. */
export interface DoctorCheck {
  /** What was checked, e.g. `maxmemory-policy`. */
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** For a problem: what to do about it. */
  fix?: string;
}

/** A check that passed. */
export function passed(name: string, detail: string): DoctorCheck {
  return { name, ok: true, detail };
}

/** A check that found a problem, with its fix. */
export function problem(name: string, detail: string, fix: string): DoctorCheck {
  return { name, ok: false, detail, fix };
}
