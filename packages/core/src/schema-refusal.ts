/**
 * How a schema outside the structured-output subset is refused: an
 * {@link ErrandError} with code `unsupported_schema` whose message starts with
 * {@link UNSUPPORTED_SCHEMA_PREFIX}, names the offending place and says the fix.
 */
import { ErrandError } from "./errors.js";
import { formatJsonPath, type JsonPath } from "./json-path.js";

/** Every refusal of a schema starts with exactly this text (docs/architecture/structured-output.md#rule-6). */
export const UNSUPPORTED_SCHEMA_PREFIX = "unsupported JSON schema: ";

/** How the empty path (the whole schema) reads in a refusal. */
const SCHEMA_ROOT_NAME = "the root schema";

/**
 * Throws the refusal `unsupported JSON schema: <path> <text>`. `text` follows
 * the path as the rest of a sentence: `is optional (…); make it required …`.
 */
export function refuseSchema(path: JsonPath, text: string, cause?: unknown): never {
  const where = formatJsonPath(path, SCHEMA_ROOT_NAME);
  throw new ErrandError("unsupported_schema", `${UNSUPPORTED_SCHEMA_PREFIX}${where} ${text}`, {
    cause,
    details: { path: [...path] },
  });
}
