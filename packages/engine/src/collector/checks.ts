/** Checks of the numeric options of the collector and the reaper. */
import { ErrandError } from "@errand/core";

/**
 * `value`, or `fallback` when it is undefined. Throws an {@link ErrandError}
 * `invalid_spec` for anything but a whole number ≥ `min`.
 */
export function wholeNumberOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min) {
    throw new ErrandError(
      "invalid_spec",
      `${name} must be a whole number ≥ ${min}, not ${chosen}`,
      {
        details: { [name]: chosen },
      },
    );
  }
  return chosen;
}
