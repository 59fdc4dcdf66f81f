/** Checks of numeric options, the same everywhere an option or argument is a count or a duration. */
import { ErrandError } from "./errors.js";

/**
 * `value` when it is a whole number ≥ `min`. Throws an {@link ErrandError}
 * `invalid_spec` naming `name` otherwise.
 */
export function requireWholeNumber(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ErrandError("invalid_spec", `${name} must be a whole number ≥ ${min}, not ${value}`, {
      details: { [name]: value },
    });
  }
  return value;
}

/** `value`, or `fallback` when it is undefined, checked as {@link requireWholeNumber} does. */
export function wholeNumberOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
): number {
  return requireWholeNumber(name, value ?? fallback, min);
}
