/** Argument checks shared by the store's entry points. */
import { ErrandError } from "@errand/core";

/** Throws an {@link ErrandError} `invalid_spec` unless `value` is a whole number ≥ `min`. */
export function requireWholeNumber(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new ErrandError("invalid_spec", `${name} must be a whole number ≥ ${min}, not ${value}`, {
      details: { [name]: value },
    });
  }
}
