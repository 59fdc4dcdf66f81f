/**
 * The whole-schema totals of the structured-output subset: object properties,
 * enum values, and characters of names and values. Each addition checks its
 * limit, so a refusal names the place where the total crossed it.
 */
import type { JsonPath } from "../json-path.js";
import { refuseSchema } from "../schema-refusal.js";
import {
  SCHEMA_LARGE_ENUM_VALUES,
  SCHEMA_MAX_ENUM_VALUES,
  SCHEMA_MAX_LARGE_ENUM_CHARS,
  SCHEMA_MAX_PROPERTIES,
  SCHEMA_MAX_TOTAL_CHARS,
} from "./limits.js";

/** `n` with a comma between each group of three digits: `120,000`. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** An enum or const value: the walker has already checked that it is a JSON scalar. */
export type SchemaScalar = string | number | boolean | null;

/** The characters a value counts toward {@link SCHEMA_MAX_TOTAL_CHARS}: a string its length, anything else its JSON. */
function charsOf(value: SchemaScalar): number {
  return typeof value === "string" ? value.length : JSON.stringify(value).length;
}

/** Running totals of one schema. */
export class SchemaTotals {
  private properties = 0;
  private enumValues = 0;
  private chars = 0;

  /** Counts the object property `name`, found at `path` (the path of its schema). */
  addProperty(path: JsonPath, name: string): void {
    this.properties += 1;
    if (this.properties > SCHEMA_MAX_PROPERTIES) {
      refuseSchema(
        path,
        `is object property number ${formatCount(this.properties)} of the schema, above the limit of ${formatCount(SCHEMA_MAX_PROPERTIES)} in total; use fewer properties`,
      );
    }
    this.addChars(path, name.length);
  }

  /** Counts the definition `name`, found at `path`. */
  addDefinition(path: JsonPath, name: string): void {
    this.addChars(path, name.length);
  }

  /** Counts the values of one `enum` (found at `path`, which ends with `enum`). */
  addEnum(path: JsonPath, values: readonly SchemaScalar[]): void {
    values.forEach((value, index) => {
      this.enumValues += 1;
      if (this.enumValues > SCHEMA_MAX_ENUM_VALUES) {
        refuseSchema(
          [...path, index],
          `brings the number of enum values to ${formatCount(this.enumValues)}, above the limit of ${formatCount(SCHEMA_MAX_ENUM_VALUES)} in total; use fewer enum values (or a string with a description)`,
        );
      }
      this.addChars([...path, index], charsOf(value));
    });
    if (values.length > SCHEMA_LARGE_ENUM_VALUES) {
      const stringChars = values.reduce<number>(
        (sum, value) => sum + (typeof value === "string" ? value.length : 0),
        0,
      );
      if (stringChars > SCHEMA_MAX_LARGE_ENUM_CHARS) {
        refuseSchema(
          path,
          `has ${formatCount(values.length)} values whose strings total ${formatCount(stringChars)} characters; an enum of more than ${SCHEMA_LARGE_ENUM_VALUES} values may total at most ${formatCount(SCHEMA_MAX_LARGE_ENUM_CHARS)}; shorten the values or split the enum`,
        );
      }
    }
  }

  /** Counts one `const` value (found at `path`, which ends with `const`). */
  addConst(path: JsonPath, value: SchemaScalar): void {
    this.addChars(path, charsOf(value));
  }

  private addChars(path: JsonPath, chars: number): void {
    this.chars += chars;
    if (this.chars > SCHEMA_MAX_TOTAL_CHARS) {
      refuseSchema(
        path,
        `brings the total length of property names, definition names, enum values and const values to ${formatCount(this.chars)} characters, above the limit of ${formatCount(SCHEMA_MAX_TOTAL_CHARS)}; shorten names and values`,
      );
    }
  }
}
