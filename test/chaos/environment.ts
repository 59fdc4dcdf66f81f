/** Reading the chaos processes' configuration from the environment. */
import { ErrandError } from "@errand/core";
import type { Durability } from "@errand/store";

/** The value of the environment variable `name`; throws `invalid_spec` when it is unset. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined) {
    throw new ErrandError("invalid_spec", `the chaos process needs ${name}`);
  }
  return value;
}

/** The number in the environment variable `name`, undefined when it is unset. */
export function optionalNumberEnv(name: string): number | undefined {
  const value = process.env[name];
  return value === undefined ? undefined : Number(value);
}

/**
 * The durability of the appends from `DURABILITY` (`acknowledged` or
 * `replicated`), none when it is unset.
 */
export function durabilityEnv(): { durability?: Durability } {
  const value = process.env.DURABILITY;
  if (value === undefined) return {};
  if (value === "acknowledged" || value === "replicated") return { durability: value };
  throw new ErrandError("invalid_spec", `DURABILITY is acknowledged or replicated, not ${value}`);
}
